{{/*
A Deployment running one consumer-group role (executor or reconciler); call with
(dict "root" $ "component" "executor" "role" .Values.executor). Both call connectors, so both get the connector
credential Secret.
*/}}
{{- define "actiongate.roleDeployment" -}}
{{- $root := .root -}}
{{- $role := .role -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "actiongate.fullname" $root }}-{{ .component }}
  labels:
    {{- include "actiongate.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  replicas: {{ $role.replicas }}
  selector:
    matchLabels:
      {{- include "actiongate.selectorLabels" (dict "root" $root "component" .component) | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "actiongate.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .component }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        {{- include "actiongate.podAnnotations" $root | nindent 8 }}
    spec:
      serviceAccountName: {{ include "actiongate.serviceAccountName" $root }}
      automountServiceAccountToken: {{ $root.Values.serviceAccount.automountServiceAccountToken }}
      terminationGracePeriodSeconds: {{ $role.terminationGracePeriodSeconds }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .component }}
          image: {{ include "actiongate.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            - run
            - --config
            - {{ include "actiongate.configFile" $root }}
            - --roles={{ .component }}
          env:
            {{- include "actiongate.env" $root | nindent 12 }}
            {{- include "actiongate.kafkaUserEnv" (dict "root" $root "role" .component) | nindent 12 }}
            {{- if eq .component "executor" }}
            # the pod name identifies the executor in AttemptOutcome.executor_id
            - name: ACTIONGATE_EXECUTOR_ID
              value: "$(POD_NAME)"
            {{- end }}
          {{- with $root.Values.extraEnvFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: http
              containerPort: {{ $root.Values.http.port }}
              protocol: TCP
          {{- include "actiongate.probes" $root | nindent 10 }}
          resources:
            {{- toYaml $role.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "actiongate.baseVolumeMounts" $root | nindent 12 }}
            {{- include "actiongate.kafkaUserVolumeMounts" (dict "root" $root "role" .component) | nindent 12 }}
            {{- if $root.Values.connectorSecrets.existingSecret }}
            - name: connector-secrets
              mountPath: {{ include "actiongate.secretsDir" $root }}
              readOnly: true
            {{- end }}
      volumes:
        {{- include "actiongate.baseVolumes" $root | nindent 8 }}
        {{- include "actiongate.kafkaUserVolumes" (dict "root" $root "role" .component) | nindent 8 }}
        {{- if $root.Values.connectorSecrets.existingSecret }}
        - name: connector-secrets
          secret:
            secretName: {{ $root.Values.connectorSecrets.existingSecret }}
            defaultMode: 0440
        {{- end }}
      {{- with $role.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $role.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $role.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- include "actiongate.topologySpread" (dict "root" $root "component" .component "constraints" $role.topologySpreadConstraints) | nindent 6 }}
{{- end }}
