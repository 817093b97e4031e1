{{/* Chart name, shortened to the 63 characters a DNS label allows. */}}
{{- define "actiongate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: "<release>-<chart>" unless the release name already holds the chart name. */}}
{{- define "actiongate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "actiongate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "actiongate.labels" -}}
helm.sh/chart: {{ include "actiongate.chart" . }}
app.kubernetes.io/name: {{ include "actiongate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: actiongate
{{- end }}

{{/* Selector labels of one component; call with (dict "root" $ "component" "gate"). */}}
{{- define "actiongate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "actiongate.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "actiongate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "actiongate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "actiongate.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "actiongate.gateHeadless" -}}
{{- printf "%s-gate-headless" (include "actiongate.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Where things are mounted inside the containers. */}}
{{- define "actiongate.configFile" -}}/etc/actiongate/actiongate.properties{{- end }}
{{- define "actiongate.stateDir" -}}/var/lib/actiongate/state{{- end }}
{{- define "actiongate.trustedKeysDir" -}}/etc/actiongate/trusted-keys{{- end }}
{{- define "actiongate.secretsDir" -}}/etc/actiongate/secrets{{- end }}
{{- define "actiongate.approverKeyDir" -}}/etc/actiongate/approver-key{{- end }}

{{/*
The configuration as a Java properties file, keys sorted: values.config overlaid with the keys the chart derives
from other values (those win, so the mounts, ports and topic settings cannot drift apart from the configuration).
Whole numbers print without a fraction; backslashes and line breaks are escaped.
*/}}
{{- define "actiongate.properties" -}}
{{- $config := deepCopy (default (dict) .Values.config) }}
{{- $_ := set $config "bootstrap.servers" .Values.kafka.bootstrapServers }}
{{- $_ = set $config "topic.prefix" .Values.topics.prefix }}
{{- $_ = set $config "topic.partitions" .Values.topics.partitions }}
{{- $_ = set $config "topic.replication.factor" .Values.topics.replicationFactor }}
{{- $_ = set $config "http.port" .Values.http.port }}
{{- $_ = set $config "http.bind.address" "0.0.0.0" }}
{{- $_ = set $config "state.dir" (include "actiongate.stateDir" .) }}
{{- $_ = set $config "gate.streams.num.stream.threads" .Values.gate.streamThreads }}
{{- if .Values.trustedKeys.existingSecret }}
{{- $_ = set $config "gate.trusted.keys.dir" (include "actiongate.trustedKeysDir" .) }}
{{- end }}
{{- if .Values.approver.enabled }}
{{- $_ = set $config "approver.public.url" (required "approver.publicUrl is required" .Values.approver.publicUrl) }}
{{- $_ = set $config "approver.http.port" .Values.approver.port }}
{{- $_ = set $config "approver.http.bind.address" "0.0.0.0" }}
{{- $_ = set $config "approver.oidc.issuer" (required "approver.oidc.issuer is required" .Values.approver.oidc.issuer) }}
{{- $_ = set $config "approver.oidc.client.id" (required "approver.oidc.clientId is required" .Values.approver.oidc.clientId) }}
{{- $_ = set $config "approver.oidc.org.claim" .Values.approver.oidc.orgClaim }}
{{- $_ = set $config "approver.signing.key.id" .Values.approver.signingKey.keyId }}
{{- $_ = set $config "approver.signing.key.file" (printf "%s/%s.key" (include "actiongate.approverKeyDir" .) .Values.approver.signingKey.keyId) }}
{{- end -}}
# Rendered by the actiongate Helm chart from values.config and the chart's derived keys.
{{- range $key := keys $config | sortAlpha }}
{{- $value := index $config $key }}
{{- if and (kindIs "float64" $value) (eq $value (float64 (int64 $value))) }}
{{- $value = int64 $value }}
{{- end }}
{{- if kindIs "invalid" $value }}
{{- $value = "" }}
{{- end }}
{{ $key }}={{ toString $value | replace "\\" "\\\\" | replace "\n" "\\n" }}
{{- end }}
{{- end }}

{{/* Environment of every actiongate container. */}}
{{- define "actiongate.env" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- with .Values.jvmOptions }}
- name: JAVA_TOOL_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Probes on the HTTP surface. */}}
{{- define "actiongate.probes" -}}
readinessProbe:
  httpGet:
    path: {{ .Values.probes.readiness.path }}
    port: http
  initialDelaySeconds: {{ .Values.probes.readiness.initialDelaySeconds }}
  periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
  timeoutSeconds: {{ .Values.probes.readiness.timeoutSeconds }}
  failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
livenessProbe:
  httpGet:
    path: {{ .Values.probes.liveness.path }}
    port: http
  initialDelaySeconds: {{ .Values.probes.liveness.initialDelaySeconds }}
  periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
  timeoutSeconds: {{ .Values.probes.liveness.timeoutSeconds }}
  failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
{{- end }}

{{/* Pod annotations: Prometheus scraping, the config checksum (a config change rolls the pods), extras. */}}
{{- define "actiongate.podAnnotations" -}}
checksum/config: {{ include "actiongate.properties" . | sha256sum }}
{{- if .Values.metrics.annotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.http.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The config file and /tmp mounts every actiongate container has. */}}
{{- define "actiongate.baseVolumeMounts" -}}
- name: config
  mountPath: {{ include "actiongate.configFile" . }}
  subPath: actiongate.properties
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- end }}

{{- define "actiongate.baseVolumes" -}}
- name: config
  configMap:
    name: {{ include "actiongate.fullname" . }}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}
