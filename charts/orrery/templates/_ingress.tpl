{{/*
One Ingress for a component: orrery.ingress (dict "root" $ "component" "router" "ingress" .Values.router.ingress "servicePort" .Values.router.service.port)
*/}}
{{- define "orrery.ingress" -}}
{{- $ctx := dict "root" .root "component" .component -}}
{{- $service := include "orrery.componentName" $ctx -}}
{{- $port := .servicePort -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ $service }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "orrery.labels" $ctx | nindent 4 }}
  {{- with .ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with .ingress.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- range .ingress.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
          {{- range .paths }}
          - path: {{ .path }}
            pathType: {{ .pathType }}
            backend:
              service:
                name: {{ $service }}
                port:
                  number: {{ $port }}
          {{- end }}
    {{- end }}
{{- end -}}
