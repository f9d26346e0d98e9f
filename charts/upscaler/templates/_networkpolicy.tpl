{{/*
The NetworkPolicy of one component: only the flows the architecture needs (docs/architecture.md, docs/distributed.md;
docs/operations.md, "Network policy"). No component calls another over HTTP: the api reaches billing through Kafka
(request/reply), the processors and webhooks read their work from Postgres and Kafka. So, in: the api's port
from its clients, every port from the metrics scrape; out: DNS, Postgres, Kafka, the object store (every service
checks it for readiness), the OTLP collector, and the public internet for the api (image_url fetches) and webhooks
(deliveries).
  {{ include "upscaler.networkPolicy" (dict "root" $ "component" "api") }}
*/}}
{{- define "upscaler.networkPolicy" -}}
{{- $root := .root -}}
{{- $np := $root.Values.networkPolicy -}}
{{- $e := $np.egress -}}
{{- $isApi := eq .component "api" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "upscaler.componentName" . }}
  labels:
    {{- include "upscaler.componentLabels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "upscaler.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if $isApi }}
    # The public API: its clients (an ingress controller, a load balancer) and the chart's `helm test` pod.
    - ports: [{port: http, protocol: TCP}]
      {{- with $np.apiFrom }}
      from:
        {{- toYaml . | nindent 8 }}
        - podSelector:
            matchLabels:
              {{- include "upscaler.selectorLabels" (dict "root" $root "component" "test") | nindent 14 }}
      {{- end }}
    {{- end }}
    {{- if or (not $isApi) $np.apiFrom }}
    # GET /metrics (Prometheus) and the health endpoints on the same port.
    - ports: [{port: http, protocol: TCP}]
      {{- with $np.metricsFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
  egress:
    {{- range $what := list "dns" "postgres" "kafka" "objectStore" "otlp" }}
    {{- $t := index $e $what }}
    # {{ $what }}
    - ports:
        {{- toYaml $t.ports | nindent 8 }}
      {{- with $t.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if or $isApi (eq .component "webhooks") }}
    # The public internet: {{ if $isApi }}source images named by image_url{{ else }}webhook deliveries{{ end }}. Private, loopback and
    # link-local ranges stay closed (a second fence behind the service's SSRF guard).
    - ports:
        {{- toYaml $e.internet.ports | nindent 8 }}
      to:
        - ipBlock:
            cidr: 0.0.0.0/0
            {{- with $e.internet.ipv4Except }}
            except:
              {{- toYaml . | nindent 14 }}
            {{- end }}
        - ipBlock:
            cidr: ::/0
            {{- with $e.internet.ipv6Except }}
            except:
              {{- toYaml . | nindent 14 }}
            {{- end }}
    {{- end }}
    {{- with $e.extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
