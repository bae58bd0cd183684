{{/*
Names, labels and the shared pod pieces (security contexts, image references).
Every workload template includes orrery.podSecurityContext and orrery.containerSecurityContext;
a test in packages/chart-tests enforces it.
*/}}

{{- define "orrery.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "orrery.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "orrery.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of a component's resources: orrery.componentName (dict "root" $ "component" "router") */}}
{{- define "orrery.componentName" -}}
{{- printf "%s-%s" (include "orrery.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "orrery.labels" -}}
helm.sh/chart: {{ include "orrery.chart" .root }}
{{ include "orrery.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: orrery
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "orrery.selectorLabels" -}}
app.kubernetes.io/name: {{ include "orrery.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Image reference: orrery.image (dict "root" $ "image" .Values.router.image) ; tag defaults to appVersion */}}
{{- define "orrery.image" -}}
{{- printf "%s%s:%s" .root.Values.global.imageRegistry .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{- define "orrery.pullPolicy" -}}
{{- default .root.Values.global.imagePullPolicy .image.pullPolicy -}}
{{- end -}}

{{- define "orrery.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create -}}
{{- include "orrery.componentName" . -}}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{- define "orrery.imagePullSecrets" -}}
{{- with .Values.global.imagePullSecrets }}
imagePullSecrets:
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "orrery.podSecurityContext" -}}
securityContext:
{{ toYaml .Values.podSecurityContext | indent 2 }}
{{- end -}}

{{- define "orrery.containerSecurityContext" -}}
securityContext:
{{ toYaml .Values.containerSecurityContext | indent 2 }}
{{- end -}}

{{/* The writable scratch space every Node.js container needs with a read-only root filesystem (tsx cache). */}}
{{- define "orrery.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "orrery.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end -}}

{{/* DATABASE_URL from the external Postgres Secret. */}}
{{- define "orrery.postgresEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "postgres.existingSecret is required: a Secret holding the Postgres URL" .Values.postgres.existingSecret }}
      key: {{ .Values.postgres.urlKey }}
{{- end -}}

{{- define "orrery.masterKeySecret" -}}
{{- required "state.masterKey.existingSecret is required: a Secret holding the state master key" .Values.state.masterKey.existingSecret -}}
{{- end -}}

{{/* The registry master key Secret: the one named in values, else the one the chart generates. */}}
{{- define "orrery.registryMasterKeySecret" -}}
{{- default (printf "%s-registry-master-key" (include "orrery.fullname" .)) .Values.registry.masterKey.existingSecret -}}
{{- end -}}

{{- define "orrery.webhookTlsSecret" -}}
{{- default (printf "%s-webhook-tls" (include "orrery.fullname" .)) .Values.webhook.tls.secretName -}}
{{- end -}}

{{- define "orrery.operatorUrl" -}}
{{- printf "http://%s.%s.svc:%v" (include "orrery.componentName" (dict "root" . "component" "operator")) .Release.Namespace .Values.operator.port -}}
{{- end -}}

{{/* The admin API the console forwards /trpc/ to: the operator serves it over the CRDs. */}}
{{- define "orrery.apiUrl" -}}
{{- include "orrery.operatorUrl" . -}}
{{- end -}}

{{- define "orrery.storeUrl" -}}
{{- default (include "orrery.operatorUrl" .) .Values.store.url -}}
{{- end -}}

{{/* --store-url / --store-token-file flags, the token volume mount and the volume, for store readers. */}}
{{- define "orrery.storeArgs" -}}
- --store-url={{ include "orrery.storeUrl" . }}
{{- if .Values.store.token.existingSecret }}
- --store-token-file=/etc/orrery/store-token/token
{{- end }}
{{- end -}}

{{- define "orrery.storeTokenVolumeMount" -}}
{{- if .Values.store.token.existingSecret }}
- name: store-token
  mountPath: /etc/orrery/store-token
  readOnly: true
{{- end }}
{{- end -}}

{{- define "orrery.storeTokenVolume" -}}
{{- if .Values.store.token.existingSecret }}
- name: store-token
  secret:
    secretName: {{ .Values.store.token.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.store.token.key }}
        path: token
{{- end }}
{{- end -}}

{{- define "orrery.statesvcUrl" -}}
{{- printf "http://%s.%s.svc:%v" (include "orrery.componentName" (dict "root" . "component" "statesvc")) .Release.Namespace .Values.statesvc.port -}}
{{- end -}}

{{/* The pod name from the downward API, for flags like --identity=$(POD_NAME) (leader election, router ids). */}}
{{- define "orrery.podIdentityEnv" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- end -}}
