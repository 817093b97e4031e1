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

{{/* repository@digest when image.digest is set (the tag is then ignored), else repository:tag. */}}
{{- define "actiongate.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "actiongate.gateHeadless" -}}
{{- printf "%s-gate-headless" (include "actiongate.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Where things are mounted inside the containers. */}}
{{- define "actiongate.configFile" -}}/etc/actiongate/actiongate.properties{{- end }}
{{- define "actiongate.stateDir" -}}/var/lib/actiongate/state{{- end }}
{{- define "actiongate.trustedKeysDir" -}}/etc/actiongate/trusted-keys{{- end }}
{{- define "actiongate.secretsDir" -}}/etc/actiongate/secrets{{- end }}
{{- define "actiongate.httpAuthDir" -}}/etc/actiongate/http-auth{{- end }}
{{- define "actiongate.httpTlsDir" -}}/etc/actiongate/http-tls{{- end }}
{{- define "actiongate.httpScheme" -}}{{ if .Values.http.tls.existingSecret }}HTTPS{{ else }}HTTP{{ end }}{{- end }}
{{- define "actiongate.approverKeyDir" -}}/etc/actiongate/approver-key{{- end }}
{{- define "actiongate.mcpTokensDir" -}}/etc/actiongate/mcp-tokens{{- end }}
{{- define "actiongate.notifierSecretsDir" -}}/etc/actiongate/notifier-secrets{{- end }}

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
{{- $_ = set $config "application.id" (include "actiongate.applicationId" .) }}
{{- $_ = set $config "executor.group.id" (include "actiongate.executorGroupId" .) }}
{{- $_ = set $config "reconciler.group.id" (include "actiongate.reconcilerGroupId" .) }}
{{- $_ = set $config "gate.rocksdb.memory.bytes" (include "actiongate.rocksdbBytes" . | int64) }}
{{- if include "actiongate.kafkaUserClients" . }}
{{- if eq .Values.kafkaUsers.authentication "tls" }}
{{- $_ = set $config "kafka.security.protocol" "SSL" }}
{{- $_ = set $config "kafka.ssl.keystore.type" "PKCS12" }}
{{- $_ = set $config "kafka.ssl.keystore.location" (printf "%s/user.p12" (include "actiongate.kafkaUserDir" .)) }}
{{- else }}
{{- $_ = set $config "kafka.security.protocol" "SASL_SSL" }}
{{- $_ = set $config "kafka.sasl.mechanism" "SCRAM-SHA-512" }}
{{- end }}
{{- if include "actiongate.kafkaCaSecret" . }}
{{- $_ = set $config "kafka.ssl.truststore.type" "PEM" }}
{{- $_ = set $config "kafka.ssl.truststore.location" (printf "%s/ca.crt" (include "actiongate.kafkaCaDir" .)) }}
{{- end }}
{{- end }}
{{- if .Values.trustedKeys.existingSecret }}
{{- $_ = set $config "gate.trusted.keys.dir" (include "actiongate.trustedKeysDir" .) }}
{{- end }}
{{- if .Values.http.auth.existingSecret }}
{{- $_ = set $config "http.auth.tokens.file" (printf "%s/%s" (include "actiongate.httpAuthDir" .) .Values.http.auth.tokensKey) }}
{{- end }}
{{- $_ = set $config "http.auth.metrics" .Values.http.auth.metrics }}
{{- if .Values.http.tls.existingSecret }}
{{- $_ = set $config "http.tls.certificate.file" (printf "%s/tls.crt" (include "actiongate.httpTlsDir" .)) }}
{{- $_ = set $config "http.tls.key.file" (printf "%s/tls.key" (include "actiongate.httpTlsDir" .)) }}
{{- with .Values.http.tls.clientCaKey }}
{{- $_ = set $config "http.tls.client.ca.file" (printf "%s/%s" (include "actiongate.httpTlsDir" $) .) }}
{{- end }}
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
{{- if .Values.approver.stateKey.existingSecret }}
{{- $_ = set $config "approver.state.key.file" (printf "/etc/actiongate/approver-state-key/%s" .Values.approver.stateKey.key) }}
{{- end }}
{{- end }}
{{- if .Values.notifier.enabled }}
{{- $review := .Values.notifier.reviewUrl }}
{{- if and (not $review) .Values.approver.enabled }}
{{- $review = printf "%s/review/{task_id}/{tool_call_id}" (trimSuffix "/" .Values.approver.publicUrl) }}
{{- end }}
{{- $_ = set $config "notifier.review.url" (required "notifier.reviewUrl is required unless approver.enabled" $review) }}
{{- end }}
{{- if .Values.mcpGateway.enabled }}
{{- $gw := .Values.mcpGateway }}
{{- if not $gw.upstreams }}
{{- fail "mcpGateway.upstreams must name at least one upstream MCP server" }}
{{- end }}
{{- $_ = set $config "mcp.gateway.host" "0.0.0.0" }}
{{- $_ = set $config "mcp.gateway.port" $gw.port }}
{{- $_ = set $config "mcp.gateway.tokens.file" (printf "%s/%s" (include "actiongate.mcpTokensDir" .) $gw.hostTokens.key) }}
{{- $_ = set $config "mcp.gateway.answer.timeout.ms" $gw.answerTimeoutMs }}
{{- $review := $gw.reviewUrl }}
{{- if and (not $review) .Values.approver.enabled }}
{{- $review = printf "%s/review/{task_id}/{tool_call_id}" (trimSuffix "/" .Values.approver.publicUrl) }}
{{- end }}
{{- $_ = set $config "mcp.gateway.review.url" (required "mcpGateway.reviewUrl is required unless approver.enabled" $review) }}
{{- $_ = set $config "mcp.gateway.upstreams" (keys $gw.upstreams | sortAlpha | join ",") }}
{{- range $name, $u := $gw.upstreams }}
{{- $_ = set $config (printf "mcp.gateway.upstream.%s.url" $name) (required (printf "mcpGateway.upstreams.%s.url is required" $name) $u.url) }}
{{- $_ = set $config (printf "mcp.gateway.upstream.%s.provider" $name) (required (printf "mcpGateway.upstreams.%s.provider is required" $name) $u.provider) }}
{{- with $u.endpoint }}
{{- $_ = set $config (printf "mcp.gateway.upstream.%s.endpoint" $name) . }}
{{- end }}
{{- with $u.operations }}
{{- $_ = set $config (printf "mcp.gateway.upstream.%s.operations" $name) . }}
{{- end }}
{{- end }}
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
{{ include "actiongate.envWithJvm" (dict "root" . "jvmOptions" .Values.jvmOptions) }}
{{- end }}

{{/* The same, with a component's own JVM options; call with (dict "root" $ "jvmOptions" "..."). */}}
{{- define "actiongate.envWithJvm" -}}
{{- $jvm := .jvmOptions }}
{{- with .root -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: ACTIONGATE_LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
{{- with $jvm }}
- name: JAVA_TOOL_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
{{- end }}

{{/* Probes on the HTTP surface. */}}
{{- define "actiongate.probes" -}}
readinessProbe:
  httpGet:
    path: {{ .Values.probes.readiness.path }}
    port: http
    scheme: {{ include "actiongate.httpScheme" . }}
  initialDelaySeconds: {{ .Values.probes.readiness.initialDelaySeconds }}
  periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
  timeoutSeconds: {{ .Values.probes.readiness.timeoutSeconds }}
  failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
livenessProbe:
  httpGet:
    path: {{ .Values.probes.liveness.path }}
    port: http
    scheme: {{ include "actiongate.httpScheme" . }}
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
{{- if .Values.http.tls.existingSecret }}
prometheus.io/scheme: https
{{- end }}
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
{{- if .Values.http.auth.existingSecret }}
- name: http-auth
  mountPath: {{ include "actiongate.httpAuthDir" . }}
  readOnly: true
{{- end }}
{{- if .Values.http.tls.existingSecret }}
- name: http-tls
  mountPath: {{ include "actiongate.httpTlsDir" . }}
  readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "actiongate.baseVolumes" -}}
- name: config
  configMap:
    name: {{ include "actiongate.fullname" . }}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- if .Values.http.auth.existingSecret }}
- name: http-auth
  secret:
    secretName: {{ .Values.http.auth.existingSecret }}
    defaultMode: 0440
{{- end }}
{{- if .Values.http.tls.existingSecret }}
- name: http-tls
  secret:
    secretName: {{ .Values.http.tls.existingSecret }}
    defaultMode: 0440
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
topologySpreadConstraints of one component; call with (dict "root" $ "component" "gate" "constraints" list).
A constraint without a labelSelector gets the component's selector labels.
*/}}
{{- define "actiongate.topologySpread" -}}
{{- $out := list }}
{{- range .constraints }}
{{- $c := deepCopy . }}
{{- if not (hasKey $c "labelSelector") }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "actiongate.selectorLabels" (dict "root" $.root "component" $.component) | fromYaml)) }}
{{- end }}
{{- $out = append $out $c }}
{{- end }}
{{- if $out }}
topologySpreadConstraints:
  {{- toYaml $out | nindent 2 }}
{{- end }}
{{- end }}

{{/* A PodDisruptionBudget of one component; call with (dict "root" $ "component" "executor" "pdb" .podDisruptionBudget). */}}
{{- define "actiongate.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "actiongate.fullname" .root }}-{{ .component }}
  labels:
    {{- include "actiongate.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if hasKey .pdb "minAvailable" }}
  minAvailable: {{ .pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ .pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "actiongate.selectorLabels" (dict "root" .root "component" .component) | nindent 6 }}
{{- end }}

{{/* An Ingress to one component's Service; call with (dict "root" $ "component" "approver" "ingress" .ingress "host" H "port" "review"). */}}
{{- define "actiongate.ingress" -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "actiongate.fullname" .root }}-{{ .component }}
  labels:
    {{- include "actiongate.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
  {{- with .ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- if .ingress.tlsSecretName }}
  tls:
    - hosts:
        - {{ .host | quote }}
      secretName: {{ .ingress.tlsSecretName }}
  {{- end }}
  rules:
    - host: {{ .host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ include "actiongate.fullname" .root }}-{{ .component }}
                port:
                  name: {{ .port }}
{{- end }}
