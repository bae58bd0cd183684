{{/* Egress rule pieces shared by the NetworkPolicies. */}}

{{- define "orrery.np.dnsEgress" -}}
- to:
    - namespaceSelector:
        {{- toYaml .Values.networkPolicy.dns.namespaceSelector | nindent 8 }}
  ports:
    - protocol: UDP
      port: {{ .Values.networkPolicy.dns.port }}
    - protocol: TCP
      port: {{ .Values.networkPolicy.dns.port }}
{{- end -}}

{{/* orrery.np.cidrEgress (dict "cidrs" list "ports" list): empty cidrs = any address, but only on these ports. */}}
{{- define "orrery.np.cidrEgress" -}}
- ports:
    {{- range .ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
  {{- with .cidrs }}
  to:
    {{- range . }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  {{- end }}
{{- end -}}

{{/* Pods of one chart component in the release namespace: orrery.np.componentPeer (dict "root" $ "component" "router") */}}
{{- define "orrery.np.componentPeer" -}}
- podSelector:
    matchLabels:
      {{- include "orrery.selectorLabels" . | nindent 6 }}
{{- end -}}

{{/* Function workers in any namespace. */}}
{{- define "orrery.np.functionWorkers" -}}
- namespaceSelector: {}
  podSelector:
    {{- toYaml .Values.networkPolicy.functionWorkerPodSelector | nindent 4 }}
{{- end -}}
