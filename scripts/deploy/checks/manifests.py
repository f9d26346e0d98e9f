"""Policy checks on rendered Kubernetes manifests, beyond what the JSON schemas can say.

usage: manifests.py FILE.yaml [--processor-grace 120]
Prints one line per problem and exits 1 if there is any. The schemas say a manifest is well formed;
these rules say it is the deployment the issue asks for (non-root, read-only root fs, probes,
secrets by reference, a Service/PDB per component, processors allowed to finish their job).
"""
import argparse
import sys

import yaml

COMPONENTS = ("api", "billing", "processor", "webhooks")
# Environment variables that carry credentials: only ever from a Secret (docs/design.md §6).
SECRET_ENV = {"DATABASE_URL", "UPSCALE_OPERATOR_TOKEN", "S3_ACCESS_KEY", "S3_SECRET_KEY"}


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def component_of(obj):
    return (obj.get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/component")


def check(docs, processor_grace):
    problems = []
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    name = lambda d: f'{d["kind"]}/{d["metadata"]["name"]}'

    if by_kind.get("Secret"):
        problems.append("the chart must not render Secrets (secrets are referenced, never inlined)")
    for cm in by_kind.get("ConfigMap", []):
        leaked = SECRET_ENV & set((cm.get("data") or {}).keys())
        if leaked:
            problems.append(f"{name(cm)} holds secret variables {sorted(leaked)}")

    deployments = {component_of(d): d for d in by_kind.get("Deployment", [])}
    hpas = {d["spec"]["scaleTargetRef"]["name"]: d for d in by_kind.get("HorizontalPodAutoscaler", [])}
    for comp in COMPONENTS:
        if comp not in deployments:
            problems.append(f"no Deployment for component {comp}")
    for comp, dep in deployments.items():
        n = name(dep)
        pod = dep["spec"]["template"]
        spec = pod["spec"]
        psc = spec.get("securityContext") or {}
        if psc.get("runAsNonRoot") is not True:
            problems.append(f"{n}: pod securityContext.runAsNonRoot is not true")
        if not psc.get("runAsUser"):
            problems.append(f"{n}: pod securityContext.runAsUser must be a non-zero uid")
        if spec.get("automountServiceAccountToken") is not False:
            problems.append(f"{n}: automountServiceAccountToken should be false (no Kubernetes API use)")
        grace = spec.get("terminationGracePeriodSeconds", 30)
        if comp == "processor" and grace < processor_grace:
            problems.append(f"{n}: terminationGracePeriodSeconds {grace} < {processor_grace} (a job must finish)")
        if dep["metadata"]["name"] in hpas and "replicas" in dep["spec"]:
            problems.append(f"{n}: sets replicas while an HPA scales it (every apply would reset the scale)")
        for c in spec["containers"]:
            cn = f"{n} container {c['name']}"
            sc = c.get("securityContext") or {}
            if sc.get("readOnlyRootFilesystem") is not True:
                problems.append(f"{cn}: readOnlyRootFilesystem is not true")
            if sc.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{cn}: allowPrivilegeEscalation is not false")
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                problems.append(f"{cn}: capabilities are not all dropped")
            res = c.get("resources") or {}
            for part in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    if r not in (res.get(part) or {}):
                        problems.append(f"{cn}: no resources.{part}.{r}")
            for probe, path in (("livenessProbe", "/health/live"), ("readinessProbe", "/health/ready")):
                got = ((c.get(probe) or {}).get("httpGet") or {}).get("path")
                if got != path:
                    problems.append(f"{cn}: {probe} path is {got!r}, expected {path}")
            pre = ((c.get("lifecycle") or {}).get("preStop") or {})
            cmd = (pre.get("exec") or {}).get("command") or []
            if not pre:
                problems.append(f"{cn}: no preStop hook")
            elif cmd[:1] == ["sleep"] and int(cmd[1]) >= grace:
                problems.append(f"{cn}: preStop sleep {cmd[1]} s uses the whole grace period {grace} s")
            env = {e["name"]: e.get("value") for e in c.get("env") or []}
            drain = env.get("UPSCALE_SHUTDOWN_GRACE_MS")
            sleep_s = int(cmd[1]) if pre and cmd[:1] == ["sleep"] else 0
            if drain is None or int(drain) > (grace - sleep_s) * 1000:
                problems.append(f"{cn}: UPSCALE_SHUTDOWN_GRACE_MS {drain} does not fit in the grace period "
                                f"{grace} s after the preStop sleep {sleep_s} s")
            if ":" not in c["image"].rsplit("/", 1)[-1] or c["image"].endswith(":latest"):
                problems.append(f"{cn}: image {c['image']!r} is not pinned to a tag")
            for e in c.get("env") or []:
                if e["name"] in SECRET_ENV and "secretKeyRef" not in (e.get("valueFrom") or {}):
                    problems.append(f"{cn}: {e['name']} must come from a secretKeyRef")
            names = {e["name"] for e in c.get("env") or []}
            for var in SECRET_ENV - names:
                problems.append(f"{cn}: {var} is not set")
            mounts = {m["mountPath"] for m in c.get("volumeMounts") or []}
            if "/tmp" not in mounts:
                problems.append(f"{cn}: no writable /tmp under a read-only root filesystem")

        labels = pod["metadata"]["labels"]
        services = [s for s in by_kind.get("Service", []) if component_of(s) == comp]
        if not services:
            problems.append(f"{n}: no Service")
        for s in services:
            if any(labels.get(k) != v for k, v in s["spec"]["selector"].items()):
                problems.append(f"{name(s)}: selector does not match the pods of {n}")
        pdbs = [p for p in by_kind.get("PodDisruptionBudget", []) if component_of(p) == comp]
        if not pdbs:
            problems.append(f"{n}: no PodDisruptionBudget")
        for p in pdbs:
            if any(labels.get(k) != v for k, v in p["spec"]["selector"]["matchLabels"].items()):
                problems.append(f"{name(p)}: selector does not match the pods of {n}")

    if "processor" in deployments and deployments["processor"]["metadata"]["name"] not in hpas:
        problems.append("the processor has no HorizontalPodAutoscaler (processors scale on their own)")
    # A processor beyond the partition count of the job topics gets no partition and idles.
    partitions = [int((cm.get("data") or {})["KAFKA_PARTITIONS"]) for cm in by_kind.get("ConfigMap", [])
                  if "KAFKA_PARTITIONS" in (cm.get("data") or {})]
    proc = deployments.get("processor")
    if proc and partitions and proc["metadata"]["name"] in hpas:
        most = hpas[proc["metadata"]["name"]]["spec"]["maxReplicas"]
        if most > min(partitions):
            problems.append(f"processor HPA maxReplicas {most} > KAFKA_PARTITIONS {min(partitions)}")
    for hpa in hpas.values():
        target = hpa["spec"]["scaleTargetRef"]["name"]
        if target not in {d["metadata"]["name"] for d in by_kind.get("Deployment", [])}:
            problems.append(f"{name(hpa)}: targets a missing Deployment {target}")
    service_names = {s["metadata"]["name"] for s in by_kind.get("Service", [])}
    for ing in by_kind.get("Ingress", []):
        for rule in ing["spec"]["rules"]:
            for p in rule["http"]["paths"]:
                backend = p["backend"]["service"]["name"]
                if backend not in service_names:
                    problems.append(f"{name(ing)}: backend {backend} is not a rendered Service")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--processor-grace", type=int, default=120)
    args = ap.parse_args()
    problems = check(load(args.file), args.processor_grace)
    for p in problems:
        print(f"POLICY {args.file}: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
