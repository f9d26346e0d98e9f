{{/* Names and labels. */}}
{{- define "upscaler.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "upscaler.fullname" -}}
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

{{/* Full name of one component: <release>-<chart>-<component>. Call with (dict "root" $ "component" "api"). */}}
{{- define "upscaler.componentName" -}}
{{- printf "%s-%s" (include "upscaler.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "upscaler.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "upscaler.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "upscaler.labels" -}}
app.kubernetes.io/name: {{ include "upscaler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: upscaler
app.kubernetes.io/managed-by: {{ default .Release.Service .Values.managedBy }}
{{- if not .Values.managedBy }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component; never change them on upgrade (Deployment selectors are immutable). */}}
{{- define "upscaler.selectorLabels" -}}
app.kubernetes.io/name: {{ include "upscaler.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "upscaler.componentLabels" -}}
{{ include "upscaler.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "upscaler.image" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .component -}}
{{- $repo := $c.image.repository -}}
{{- if not $repo -}}
{{- $repo = printf "%s-%s" $root.Values.image.repositoryPrefix .component -}}
{{- if $root.Values.image.registry -}}
{{- $repo = printf "%s/%s" $root.Values.image.registry $repo -}}
{{- end -}}
{{- end -}}
{{- printf "%s:%s" $repo (default (default $root.Chart.AppVersion $root.Values.image.tag) $c.image.tag) -}}
{{- end -}}

{{/* One environment variable read from a referenced Secret. */}}
{{- define "upscaler.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.existingSecret }}
      key: {{ .ref.key }}
{{- end -}}

{{/*
OTEL_RESOURCE_ATTRIBUTES of one component's container: the pod, its namespace and node (downward API variables
set just above it), the Deployment, the container and the version, then config.otelResourceAttributes. Keys and
values are percent-encoded where the W3C baggage format needs it (commas, equals signs, spaces).
*/}}
{{- define "upscaler.otelResourceAttributes" -}}
{{- $root := .root -}}
{{- $attrs := list
  "k8s.pod.name=$(K8S_POD_NAME)"
  "k8s.pod.uid=$(K8S_POD_UID)"
  "k8s.namespace.name=$(K8S_NAMESPACE_NAME)"
  "k8s.node.name=$(K8S_NODE_NAME)"
  (printf "k8s.deployment.name=%s" (include "upscaler.componentName" .))
  (printf "k8s.container.name=%s" .component)
  (printf "service.version=%s" (default (default $root.Chart.AppVersion $root.Values.image.tag) (index $root.Values .component).image.tag))
-}}
{{- range $k, $v := $root.Values.config.otelResourceAttributes -}}
{{- $attrs = append $attrs (printf "%s=%s" (include "upscaler.baggageEscape" $k) (include "upscaler.baggageEscape" (toString $v))) -}}
{{- end -}}
{{- join "," $attrs -}}
{{- end -}}

{{- define "upscaler.baggageEscape" -}}
{{- . | replace "%" "%25" | replace "," "%2C" | replace "=" "%3D" | replace " " "%20" | replace ";" "%3B" | replace "\"" "%22" -}}
{{- end -}}
