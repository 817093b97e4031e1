{{/*
The Kafka ACLs of each role: the one place the chart keeps them (README.md, "Kafka ACLs per role", has the same
table). Each role may read and write exactly the topics docs/contract.md section 1 gives it; a tool host (the MCP
gateway) may write proposals and read receipts, conflicts and policy, never write decisions, policy, attempts,
outcomes or reconciliations; the approval service writes only decisions.
Call with (dict "root" $ "role" "gate"); renders a YAML list of Strimzi KafkaUser ACL rules (simple authorization).
*/}}
{{- define "actiongate.aclTopics" -}}
gate:
  read: [proposals, decisions, policy, outcomes, reconciliations]
  write: [attempts, unknown-outcomes, receipts, conflicts, dead-letters]
executor:
  read: [attempts]
  write: [outcomes]
reconciler:
  read: [unknown-outcomes]
  write: [reconciliations]
approver:
  read: [proposals, receipts, outcomes, reconciliations]
  write: [decisions]
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
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Describe" "Read")) }}
{{- end }}
{{- range $topics.write }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Describe" "Write")) }}
{{- end }}
{{- if eq .role "gate" }}
{{- $app := include "actiongate.applicationId" $root }}
{{- /* Kafka Streams exactly-once v2: its group, its internal (repartition, changelog) topics, purged after use, and
       its transactional ids <application.id>-<process id>-<thread> */}}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" $app "patternType" "literal") "operations" (list "Describe" "Read")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s-" $app) "patternType" "prefix") "operations" (list "Create" "Delete" "Describe" "DescribeConfigs" "Read" "Write")) }}
{{- $rules = append $rules (dict "resource" (dict "type" "transactionalId" "name" (printf "%s-" $app) "patternType" "prefix") "operations" (list "Describe" "Write")) }}
{{- else if eq .role "executor" }}
{{- $group := include "actiongate.executorGroupId" $root }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" $group "patternType" "literal") "operations" (list "Describe" "Read")) }}
{{- if eq (toString (index (default (dict) $root.Values.config) "storage.enabled")) "true" }}
{{- /* the attachment cleaner: deletes a finished action's attachments, following policy and receipts */}}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" (printf "%s-attachment-cleaner" $group) "patternType" "literal") "operations" (list "Describe" "Read")) }}
{{- range list "policy" "receipts" }}
{{- $rules = append $rules (dict "resource" (dict "type" "topic" "name" (printf "%s%s" $prefix .) "patternType" "literal") "operations" (list "Describe" "Read")) }}
{{- end }}
{{- end }}
{{- else if eq .role "reconciler" }}
{{- $rules = append $rules (dict "resource" (dict "type" "group" "name" (include "actiongate.reconcilerGroupId" $root) "patternType" "literal") "operations" (list "Describe" "Read")) }}
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
