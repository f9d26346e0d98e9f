# Sourced by up.sh: the cluster's certificates, one CA (openssl). make_cert NAME CN [O] [SANS] [USAGE]
ca_init() {
  local dir="$1"
  [ -f "$dir/ca.crt" ] && return 0
  mkdir -p "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=upscaler-local-cluster-ca" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
  openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
}

make_cert() {
  local dir="$1" name="$2" cn="$3" org="${4:-}" sans="${5:-}" usage="${6:-clientAuth}"
  local subj="/CN=$cn"
  [ -n "$org" ] && subj="/O=$org$subj"
  local ext="$dir/$name.ext"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$sans" ] && echo "subjectAltName=$sans"
  } >"$ext"
  openssl req -new -newkey rsa:2048 -nodes -subj "$subj" -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 3650 \
    -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
  rm -f "$dir/$name.csr" "$ext"
}

make_kubeconfig() {
  local file="$1" server="$2" ca="$3" cert="$4" key="$5" user="$6"
  cat >"$file" <<KC
apiVersion: v1
kind: Config
clusters:
  - name: upscaler-local
    cluster:
      server: $server
      certificate-authority: $ca
users:
  - name: $user
    user:
      client-certificate: $cert
      client-key: $key
contexts:
  - name: upscaler-local
    context: {cluster: upscaler-local, user: $user}
current-context: upscaler-local
KC
}
