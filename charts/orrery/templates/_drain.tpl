{{/*
A pause before the stop signal, for the pods that serve requests (router, statesvc): the
endpoints controller and every node's kube-proxy act on a pod's deletion at the same time as
its kubelet, so without it a new connection can still be sent to a listener that already
closed. The pod serves on for these seconds while it leaves its Services, then drains on SIGTERM.
Connections a client keeps alive to the old pod are statesvc's to end (--drain: Connection: close
on each answer before it closes); see docs/operations.md "Upgrade".
The native sleep action from Kubernetes 1.30; before that, the image's sleep.
*/}}
{{- define "orrery.preStopDrain" -}}
lifecycle:
  preStop:
    {{- if semverCompare ">=1.30-0" .Capabilities.KubeVersion.Version }}
    sleep:
      seconds: 5
    {{- else }}
    exec:
      command: ["sleep", "5"]
    {{- end }}
{{- end }}
