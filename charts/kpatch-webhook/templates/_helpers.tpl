{{/* The release's resource name, at most 63 characters: the chart name when
it starts with the release name (release "kpatch" gives "kpatch-webhook"),
the release name when it holds the chart name, else both. */}}
{{- define "kpatch.fullname" -}}
{{- if or (eq .Release.Name .Chart.Name) (hasPrefix (printf "%s-" .Release.Name) .Chart.Name) -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kpatch.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kpatch.labels" -}}
{{ include "kpatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kpatch.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The Secret holding the serving certificate. */}}
{{- define "kpatch.tlsSecret" -}}
{{ include "kpatch.fullname" . }}-tls
{{- end -}}

{{/* The MutatingWebhookConfiguration's name: cluster-scoped, so it carries the namespace. */}}
{{- define "kpatch.webhookConfigName" -}}
{{ printf "%s-%s" .Release.Namespace (include "kpatch.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* The Secret holding the self-managed CA. */}}
{{- define "kpatch.caSecret" -}}
{{ .Values.tls.selfManaged.secretName | default (printf "%s-ca" (include "kpatch.fullname" .)) }}
{{- end -}}

{{/* The Secret holding the path token (webhook.pathToken). */}}
{{- define "kpatch.pathTokenSecret" -}}
{{ include "kpatch.fullname" . }}-path-token
{{- end -}}

{{/* The ConfigMap of the last good versions: never labelled as the registry. */}}
{{- define "kpatch.lastGoodConfigMap" -}}
{{ include "kpatch.fullname" . }}-last-good
{{- end -}}

{{/* The webhook's matchConditions, as a YAML list: the exclusions of
webhook.exclude as CEL on request.userInfo (service accounts become their
user names), then webhook.matchConditions as they are. Lists are written as
JSON, which is CEL's list literal syntax too. */}}
{{- define "kpatch.matchConditions" -}}
{{- $users := list -}}
{{- range .Values.webhook.exclude.users -}}
{{- $users = append $users . -}}
{{- end -}}
{{- range .Values.webhook.exclude.serviceAccounts -}}
{{- $sa := splitList "/" . -}}
{{- $users = append $users (printf "system:serviceaccount:%s:%s" (index $sa 0) (index $sa 1)) -}}
{{- end -}}
{{- $conditions := list -}}
{{- with $users -}}
{{- $conditions = append $conditions (dict "name" "kpatch-exclude-users" "expression" (printf "!(request.userInfo.username in %s)" (toJson .))) -}}
{{- end -}}
{{- with .Values.webhook.exclude.groups -}}
{{- $conditions = append $conditions (dict "name" "kpatch-exclude-groups" "expression" (printf "!(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in %s))" (toJson .))) -}}
{{- end -}}
{{- concat $conditions .Values.webhook.matchConditions | toYaml -}}
{{- end -}}

{{/* The ServiceAccount whose token the ServiceMonitor scrapes with, when
metrics.serviceMonitor.credentials.secretName names no Secret. */}}
{{- define "kpatch.metricsScraper" -}}
{{ include "kpatch.fullname" . }}-metrics-scraper
{{- end -}}

{{/* registry.selector as a LabelSelector, in YAML: the objectSelector of the
registry's validation. Equality-based terms (key=value, key==value,
key!=value) and existence (key, !key); a set-based term (in, notin) fails
the rendering. */}}
{{- define "kpatch.registryObjectSelector" -}}
{{- $labels := dict -}}
{{- $exprs := list -}}
{{- range splitList "," .Values.registry.selector -}}
{{- $term := trim . -}}
{{- if contains "(" $term -}}
{{- fail (printf "registry.validate.enabled: registry.selector %q has a set-based term (%s): the objectSelector of the registry's validation takes equality-based terms only" $.Values.registry.selector $term) -}}
{{- else if contains "!=" $term -}}
{{- $kv := splitn "!=" 2 $term -}}
{{- $exprs = append $exprs (dict "key" (trim $kv._0) "operator" "NotIn" "values" (list (trim $kv._1))) -}}
{{- else if contains "=" $term -}}
{{- $kv := splitn "=" 2 (replace "==" "=" $term) -}}
{{- $_ := set $labels (trim $kv._0) (trim $kv._1) -}}
{{- else if hasPrefix "!" $term -}}
{{- $exprs = append $exprs (dict "key" (trimPrefix "!" $term | trim) "operator" "DoesNotExist") -}}
{{- else if $term -}}
{{- $exprs = append $exprs (dict "key" $term "operator" "Exists") -}}
{{- end -}}
{{- end -}}
{{- $sel := dict -}}
{{- with $labels }}{{ $_ := set $sel "matchLabels" . }}{{ end -}}
{{- with $exprs }}{{ $_ := set $sel "matchExpressions" . }}{{ end -}}
{{- toYaml $sel -}}
{{- end -}}
