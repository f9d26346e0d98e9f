{{/*
The four components share one shape; each component folder instantiates it with its own values:
  {{ include "upscaler.deployment" (dict "root" $ "component" "processor") }}
*/}}

{{- define "upscaler.deployment" -}}
{{- $root := .root -}}
{{- $name := .component -}}
{{- $c := index $root.Values $name -}}
{{- $ctx := dict "root" $root "component" $name -}}
{{- if lt (sub $c.terminationGracePeriodSeconds $c.preStopSleepSeconds) 10 -}}
{{- fail (printf "%s: terminationGracePeriodSeconds must exceed preStopSleepSeconds by at least 10 s" $name) -}}
{{- end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "upscaler.componentName" $ctx }}
  labels:
    {{- include "upscaler.componentLabels" $ctx | nindent 4 }}
spec:
  {{- if not $c.autoscaling.enabled }}
  replicas: {{ $c.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "upscaler.selectorLabels" $ctx | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "upscaler.componentLabels" $ctx | nindent 8 }}
        {{- with $c.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when the shared configuration changes.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- if $root.Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: "8080"
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $c.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "upscaler.serviceAccountName" $root }}
      automountServiceAccountToken: false
      {{- with $root.Values.image.pullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ $name }}
          image: {{ include "upscaler.image" $ctx | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "upscaler.fullname" $root }}-config
          env:
            {{- include "upscaler.secretEnv" (dict "name" "DATABASE_URL" "ref" $root.Values.secrets.databaseUrl) | nindent 12 }}
            {{- include "upscaler.secretEnv" (dict "name" "UPSCALE_OPERATOR_TOKEN" "ref" $root.Values.secrets.operatorToken) | nindent 12 }}
            {{- include "upscaler.secretEnv" (dict "name" "S3_ACCESS_KEY" "ref" $root.Values.secrets.s3AccessKey) | nindent 12 }}
            {{- include "upscaler.secretEnv" (dict "name" "S3_SECRET_KEY" "ref" $root.Values.secrets.s3SecretKey) | nindent 12 }}
            - name: OTEL_SERVICE_NAME
              value: {{ printf "upscaler-%s" $name | quote }}
            # Where each span comes from (OpenTelemetry's k8s semantic conventions), from the downward API;
            # Kubernetes expands $(VAR) from the variables above it.
            - name: K8S_POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            - name: K8S_POD_UID
              valueFrom: {fieldRef: {fieldPath: metadata.uid}}
            - name: K8S_NAMESPACE_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
            - name: K8S_NODE_NAME
              valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
            - name: OTEL_RESOURCE_ATTRIBUTES
              value: {{ include "upscaler.otelResourceAttributes" $ctx | quote }}
            # The service's own drain deadline: what is left of the grace period after the preStop
            # sleep, less 5 s so that it exits before the kubelet's SIGKILL.
            - name: UPSCALE_SHUTDOWN_GRACE_MS
              value: {{ mul (sub (sub $c.terminationGracePeriodSeconds $c.preStopSleepSeconds) 5) 1000 | quote }}
            {{- if hasKey $c "engineThreads" }}
            - name: UPSCALE_ENGINE_THREADS
              value: {{ $c.engineThreads | quote }}
            {{- end }}
            {{- if hasKey $c "enginePrecision" }}
            - name: UPSCALE_ENGINE_PRECISION
              value: {{ $c.enginePrecision | quote }}
            {{- end }}
            {{- if $root.Values.extraCaCertificates.configMap }}
            # Node.js trusts these CAs besides its own (webhook endpoints, image URLs, S3 behind a private CA).
            - name: NODE_EXTRA_CA_CERTS
              value: /etc/upscaler/extra-ca/{{ $root.Values.extraCaCertificates.key }}
            {{- end }}
            {{- range $k, $v := $c.extraEnv }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ $c.preStopSleepSeconds | quote }}]
          startupProbe:
            httpGet: {path: /health/live, port: http}
            {{- toYaml $c.probes.startup | nindent 12 }}
          livenessProbe:
            httpGet: {path: /health/live, port: http}
            {{- toYaml $c.probes.liveness | nindent 12 }}
          readinessProbe:
            httpGet: {path: /health/ready, port: http}
            {{- toYaml $c.probes.readiness | nindent 12 }}
          resources:
            {{- toYaml $c.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            - name: data
              mountPath: /data
            {{- if $root.Values.extraCaCertificates.configMap }}
            - name: extra-ca
              mountPath: /etc/upscaler/extra-ca
              readOnly: true
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
        # UPSCALE_DATA_DIR: scratch only in distributed mode (state lives in Postgres and S3).
        - name: data
          emptyDir:
            sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
        {{- if $root.Values.extraCaCertificates.configMap }}
        - name: extra-ca
          configMap:
            name: {{ $root.Values.extraCaCertificates.configMap }}
            items: [{key: {{ $root.Values.extraCaCertificates.key }}, path: {{ $root.Values.extraCaCertificates.key }}}]
        {{- end }}
      {{- with $c.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $c.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml $c.topologySpreadConstraints | nindent 8 }}
      {{- else }}
      # Spread replicas over nodes when the cluster has several; never blocks scheduling.
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "upscaler.selectorLabels" $ctx | nindent 14 }}
      {{- end }}
{{- end -}}

{{- define "upscaler.service" -}}
{{- $c := index .root.Values .component -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "upscaler.componentName" . }}
  labels:
    {{- include "upscaler.componentLabels" . | nindent 4 }}
spec:
  type: {{ $c.service.type }}
  selector:
    {{- include "upscaler.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ $c.service.port }}
      targetPort: http
      protocol: TCP
      {{- if and (ne $c.service.type "ClusterIP") $c.service.nodePort }}
      nodePort: {{ $c.service.nodePort }}
      {{- end }}
{{- end -}}

{{- define "upscaler.hpa" -}}
{{- $c := index .root.Values .component -}}
{{- $a := $c.autoscaling -}}
{{- if $a.enabled -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "upscaler.componentName" . }}
  labels:
    {{- include "upscaler.componentLabels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "upscaler.componentName" . }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    {{- if $a.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $a.targetCPUUtilizationPercentage }}
    {{- end }}
    {{- if $a.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ $a.targetMemoryUtilizationPercentage }}
    {{- end }}
    {{- if $a.customMetric.enabled }}
    {{- if eq $a.customMetric.type "Pods" }}
    - type: Pods
      pods:
        metric:
          name: {{ $a.customMetric.name }}
        target:
          type: AverageValue
          averageValue: {{ $a.customMetric.targetAverageValue | quote }}
    {{- else }}
    - type: External
      external:
        metric:
          name: {{ $a.customMetric.name }}
        target:
          type: AverageValue
          averageValue: {{ $a.customMetric.targetAverageValue | quote }}
    {{- end }}
    {{- end }}
  {{- with $a.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
{{- end -}}

{{- define "upscaler.pdb" -}}
{{- $c := index .root.Values .component -}}
{{- if $c.pdb.enabled -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "upscaler.componentName" . }}
  labels:
    {{- include "upscaler.componentLabels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $c.pdb.minAvailable) }}
  minAvailable: {{ $c.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $c.pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "upscaler.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}
