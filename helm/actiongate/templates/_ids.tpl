{{/*
The Kafka ids of a release: the gate's application.id (its consumer group and the prefix of its internal topics and
transactional ids), the executors' and the reconcilers' consumer groups. In order:
  1. the value (gate.applicationId, executor.groupId, reconciler.groupId), when set, else the same key in config
     (application.id, executor.group.id, reconciler.group.id: what earlier charts let a user set);
  2. on an upgrade, the id the installed release already uses (read from its ConfigMap): changing the gate's
     application.id would start it on empty state and reprocess every input from the beginning; a ConfigMap of a
     chart that had no ids (before 0.2.0) means the old constants actiongate-gate / -executor / -reconciler;
  3. <namespace>.<fullname>-<role>, unique per release, so two releases can share one Kafka cluster.
Call with (dict "root" $ "role" "gate" "key" "application.id" "value" .Values.gate.applicationId).
*/}}
{{- define "actiongate.kafkaId" -}}
{{- $configured := index (default (dict) .root.Values.config) .key }}
{{- if .value }}
{{- .value }}
{{- else if $configured }}
{{- $configured }}
{{- else }}
{{- $previous := "" }}
{{- /* only on an upgrade: lookup would otherwise ask a cluster even in `helm template` */}}
{{- $cm := dict }}
{{- if .root.Release.IsUpgrade }}
{{- $cm = lookup "v1" "ConfigMap" .root.Release.Namespace (include "actiongate.fullname" .root) }}
{{- end }}
{{- if $cm }}
{{- $props := index (default (dict) $cm.data) "actiongate.properties" | default "" }}
{{- $line := regexFind (printf "(?m)^%s=.*$" (regexQuoteMeta .key)) $props }}
{{- if $line }}
{{- $previous = trimPrefix (printf "%s=" .key) $line | trim }}
{{- else }}
{{- $previous = printf "actiongate-%s" .role }}
{{- end }}
{{- end }}
{{- default (printf "%s.%s-%s" .root.Release.Namespace (include "actiongate.fullname" .root) .role) $previous }}
{{- end }}
{{- end }}

{{- define "actiongate.applicationId" -}}
{{- include "actiongate.kafkaId" (dict "root" . "role" "gate" "key" "application.id" "value" .Values.gate.applicationId) }}
{{- end }}

{{- define "actiongate.executorGroupId" -}}
{{- include "actiongate.kafkaId" (dict "root" . "role" "executor" "key" "executor.group.id" "value" .Values.executor.groupId) }}
{{- end }}

{{- define "actiongate.reconcilerGroupId" -}}
{{- include "actiongate.kafkaId" (dict "root" . "role" "reconciler" "key" "reconciler.group.id" "value" .Values.reconciler.groupId) }}
{{- end }}

{{/*
A Kubernetes memory quantity (512Mi, 2Gi, 1.5G, 1073741824) in bytes; 0 for an empty value. Fails on anything else.
*/}}
{{- define "actiongate.quantityBytes" -}}
{{- $q := ternary (toString (int64 (default 0 .))) (toString . | trim) (kindIs "float64" .) }}
{{- if or (eq $q "") (eq $q "<nil>") }}0
{{- else }}
{{- if not (regexMatch "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|K|M|G|T)?$" $q) }}
{{- fail (printf "cannot read the memory quantity %q" $q) }}
{{- end }}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $q }}
{{- $unit := trimPrefix $number $q }}
{{- $factors := dict "" 1 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "k" 1000 "K" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 }}
{{- mulf (float64 $number) (float64 (index $factors $unit)) | floor | int64 }}
{{- end }}
{{- end }}

{{/*
gate.rocksdb.memory.bytes: gate.rocksdb.memoryBytes when set, else memoryPercentOfLimit percent of the gate
container's memory limit (0, unbounded, without a limit).
*/}}
{{- define "actiongate.rocksdbBytes" -}}
{{- $raw := .Values.gate.rocksdb.memoryBytes }}
{{- if kindIs "float64" $raw }}
{{- /* a number in a values file arrives as a float: 268435456 would print as 2.68435456e+08 */}}
{{- $raw = int64 $raw }}
{{- end }}
{{- /* not `default`: 0 is a value here (unbounded), not an absent one */}}
{{- $explicit := ternary "" (toString $raw) (kindIs "invalid" $raw) }}
{{- if ne $explicit "" }}
{{- include "actiongate.quantityBytes" $explicit }}
{{- else }}
{{- $limit := include "actiongate.quantityBytes" (dig "limits" "memory" "" (default (dict) .Values.gate.resources)) | int64 }}
{{- div (mul $limit (int64 .Values.gate.rocksdb.memoryPercentOfLimit)) 100 }}
{{- end }}
{{- end }}
