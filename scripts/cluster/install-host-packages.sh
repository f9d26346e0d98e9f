#!/usr/bin/env bash
# Installs, from Debian's packages, what the images and the local cluster need on this machine (as root):
# podman/buildah (images, runtime runc), mmdebstrap (the base image), containerd + runc + CNI plugins (the node),
# etcd (the control plane's store), iptables/conntrack (kube-proxy), postgresql-15 (the database the cluster's
# services use from outside, as a managed one), openssl (the cluster's certificates), envsubst (manifests).
# Skips what is installed.
set -euo pipefail
packages=(podman buildah runc containerd containernetworking-plugins netavark aardvark-dns mmdebstrap skopeo
  etcd-server etcd-client iptables conntrack socat ethtool ebtables uidmap fuse-overlayfs slirp4netns
  postgresql-15 openssl curl gettext-base)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "[host-packages] installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
