{{/*
The Kafka ACLs of each role, rule for rule those of io.actiongate.acls.RoleAcls (cli module): the definition that
`actiongate acls` prints and applies, SecuredClusterIT grants and docs/kafka-security.md tabulates (generated).
HelmChartAclsTest renders this chart and fails unless every KafkaUser holds exactly its role's RoleAcls bindings
(resource type, name, pattern type, operation), so change RoleAcls first and this template with it. As in RoleAcls,
Read and Write imply Describe, and no role needs a cluster ACL.
Call with (dict "root" $ "role" "gate"); renders a YAML list of Strimzi KafkaUser ACL rules (simple authorization).
*/}}
{{- define "actiongate.aclTopics" -}}
gate:
  read: [proposals, decisions, outcomes, reconciliations, policy]
  write: [receipts, attempts, unknown-outcomes, conflicts, dead-letters]
executor:
  read: [attempts]
  write: [outcomes]
reconciler:
  read: [unknown-outcomes]
  write: [reconciliations]
approver:
  read: [proposals, receipts, outcomes, reconciliations, conflicts]
  write: [decisions]
notifier:
  read: [receipts, proposals, policy]
  write: []
mcpGateway:
  read: [receipts, conflicts, policy]
  write: [proposals]
{{- end }}

{{- define "actiongate.acls" -}}
{{- $root := .root }}
{{- $prefix := $root.Values.topics.prefix }}
{{- $topics := index (include "actiongate.aclTopics" $root | fromYaml) .role }}
{{- $rules := list }}
{{- range $topics.read }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Read")) }}
{{- end }}
{{- range $topics.write }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Write")) }}
{{- end }}
{{- if eq .role "gate" }}
{{- $app := include "actiongate.applicationId" $root }}
{{- $internal := printf "%s-" $app }}
{{- range concat $topics.read $topics.write }}
{{- if hasPrefix $internal (printf "%s%s" $prefix .) }}
{{- fail (printf "gate.applicationId %q with topics.prefix %q: the gate's prefixed ACLs on %q (its internal topics and transactional ids) would cover the actiongate topic %q; choose names that do not overlap" $app $prefix $internal (printf "%s%s" $prefix .)) }}
{{- end }}
{{- end }}
{{- /* Kafka Streams exactly-once v2: its internal (repartition, changelog) topics <application.id>-..., created,
       read, written, purged after use; its group; its transactional ids <application.id>-<process id>-<thread> */}}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $internal "patternType" "prefix") "operations" (list "Create" "Read" "Write" "Delete" "DescribeConfigs")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" $app "patternType" "literal") "operations" (list "Read")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "transactionalId" "name" $internal "patternType" "prefix") "operations" (list "Write" "Describe")) }}
{{- else if eq .role "executor" }}
{{- $group := include "actiongate.executorGroupId" $root }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" $group "patternType" "literal") "operations" (list "Read")) }}
{{- if eq (toString (index (default (dict) $root.Values.config) "storage.enabled") | trim | lower) "true" }}
{{- /* the attachment cleaner: deletes a finished action's attachments, following policy and receipts */}}
{{- range list "policy" "receipts" }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Read")) }}
{{- end }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" (printf "%s-attachment-cleaner" $group) "patternType" "literal") "operations" (list "Read")) }}
{{- end }}
{{- else if eq .role "approver" }}
{{- /* its own compacted state topic, created at its first start and shared by every replica */}}
{{- $state := default (printf "%sapprover-state" $prefix) (index (default (dict) $root.Values.config) "approver.state.topic") }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Read")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Write")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Create")) }}
{{- else if eq .role "notifier" }}
{{- /* its claims and results, one partition, created at its first start and shared by every replica */}}
{{- $state := default (printf "%snotifier-state" $prefix) (index (default (dict) $root.Values.config) "notifier.state.topic") }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Read")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Write")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" $state "patternType" "literal") "operations" (list "Create")) }}
{{- else if eq .role "reconciler" }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" (include "actiongate.reconcilerGroupId" $root) "patternType" "literal") "operations" (list "Read")) }}
{{- end }}
{{- range (index (default (dict) $root.Values.kafkaUsers.extraAcls) .role | default list) }}
{{- $rules = append $rules . }}
{{- end }}
{{- toYaml $rules }}
{{- end }}

{{/* The KafkaUser (and so the user's Secret) of a role; call with (dict "root" $ "role" "gate"). */}}
{{- define "actiongate.kafkaUserName" -}}
{{- printf "%s-%s" (include "actiongate.fullname" .root) (.role | kebabcase) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "actiongate.strimziCluster" -}}
{{- default .Values.topics.strimzi.clusterName .Values.strimzi.clusterName }}
{{- end }}

{{- define "actiongate.strimziApiVersion" -}}
kafka.strimzi.io/{{ .Values.strimzi.apiVersion }}
{{- end }}

{{- define "actiongate.kafkaCaSecret" -}}
{{- if eq .Values.kafkaUsers.clusterCaSecret "-" }}
{{- else }}
{{- default (printf "%s-cluster-ca-cert" (include "actiongate.strimziCluster" .)) .Values.kafkaUsers.clusterCaSecret }}
{{- end }}
{{- end }}

{{- define "actiongate.kafkaUserDir" -}}/etc/actiongate/kafka-user{{- end }}
{{- define "actiongate.kafkaCaDir" -}}/etc/actiongate/kafka-ca{{- end }}

{{/* Whether the chart wires a role's pods to its KafkaUser. */}}
{{- define "actiongate.kafkaUserClients" -}}
{{- if and .Values.kafkaUsers.enabled .Values.kafkaUsers.configureClients }}true{{ end }}
{{- end }}

{{/* Environment of a role's container for its KafkaUser; call with (dict "root" $ "role" "gate"). */}}
{{- define "actiongate.kafkaUserEnv" -}}
{{- if include "actiongate.kafkaUserClients" .root }}
{{- if eq .root.Values.kafkaUsers.authentication "tls" }}
- name: ACTIONGATE_KAFKA_SSL_KEYSTORE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "actiongate.kafkaUserName" . }}
      key: user.password
{{- else }}
- name: ACTIONGATE_KAFKA_SASL_JAAS_CONFIG
  valueFrom:
    secretKeyRef:
      name: {{ include "actiongate.kafkaUserName" . }}
      key: sasl.jaas.config
{{- end }}
{{- end }}
{{- end }}

{{/* Volume mounts of a role's container for its KafkaUser and the cluster CA. */}}
{{- define "actiongate.kafkaUserVolumeMounts" -}}
{{- if include "actiongate.kafkaUserClients" .root }}
{{- if eq .root.Values.kafkaUsers.authentication "tls" }}
- name: kafka-user
  mountPath: {{ include "actiongate.kafkaUserDir" . }}
  readOnly: true
{{- end }}
{{- if include "actiongate.kafkaCaSecret" .root }}
- name: kafka-ca
  mountPath: {{ include "actiongate.kafkaCaDir" . }}
  readOnly: true
{{- end }}
{{- end }}
{{- end }}

{{- define "actiongate.kafkaUserVolumes" -}}
{{- if include "actiongate.kafkaUserClients" .root }}
{{- if eq .root.Values.kafkaUsers.authentication "tls" }}
- name: kafka-user
  secret:
    secretName: {{ include "actiongate.kafkaUserName" . }}
    defaultMode: 0440
{{- end }}
{{- with include "actiongate.kafkaCaSecret" .root }}
- name: kafka-ca
  secret:
    secretName: {{ . }}
    defaultMode: 0444
{{- end }}
{{- end }}
{{- end }}
