"""Recipes render what their parameters say, or refuse values that contradict each other."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.errors import ParameterError
from gpukb.recipes import find_recipe, generate, load_recipes, render_recipe

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")


def _render(recipe_id: str, params: dict, validate: bool = False):
    return render_recipe(find_recipe(recipe_id, RECIPES), params, validate=validate)


def _refused(recipe_id: str, params: dict) -> ParameterError:
    with pytest.raises(ParameterError) as ei:
        _render(recipe_id, params)
    return ei.value


def _doc(rendered, kind: str) -> dict:
    return next(d for d in rendered.documents if d["kind"] == kind)


def test_tenant_onboarding_keeps_the_per_pod_cap_within_the_quota():
    def cap(r):
        return _doc(r, "LimitRange")["spec"]["limits"][0]["max"]["nvidia.com/gpu"]

    # both stated and contradictory: refused, as gpu-quota refuses it
    err = _refused("tenant-onboarding", {"gpus": 4, "max_gpus_per_pod": 8})
    assert err.parameter == "max_gpus_per_pod" and "max_gpus_per_pod=8" in str(err) and "gpus=4" in str(err)
    # only the total stated: the default cap of 8 yields to it, as gpu-quota's cap follows the quota
    r = _render("tenant-onboarding", {"gpus": 4})
    assert cap(r) == "4" and r.params["max_gpus_per_pod"] == 4 and r.notices
    assert cap(_render("gpu-quota", {"gpus": 4})) == "4"
    # no GPUs at all: the cap is the smallest one (1), as gpu-quota renders it
    assert cap(_render("tenant-onboarding", {"gpus": 0})) == cap(_render("gpu-quota", {"gpus": 0})) == "1"
    assert cap(_render("tenant-onboarding", {"gpus": 0, "max_gpus_per_pod": 1})) == "1"
    # only the cap stated: the default total grows to it, as in gpu-quota
    r = _render("tenant-onboarding", {"max_gpus_per_pod": 16})
    assert r.params["gpus"] == 16 == _render("gpu-quota", {"max_gpus_per_pod": 16}).params["gpus"]
    # the default render is unchanged, and "4 GPUs" in plain words is no error
    assert cap(_render("tenant-onboarding", {})) == "8"
    g = generate("onboard team vision with 4 GPUs", RECIPES, llm=False)
    assert g.recipe == "tenant-onboarding" and cap(g) == "4"


def test_priority_class_descriptions_follow_their_preemption_policy():
    def classes(params):
        return {d["metadata"]["name"]: d for d in _render("priority-classes", params).documents}

    research = classes({"research_preempts": True})["gpu-research"]
    assert research["preemptionPolicy"] == "PreemptLowerPriority"
    assert "instead of preempting" not in research["description"] and "may preempt" in research["description"]
    default = classes({})
    assert default["gpu-research"]["preemptionPolicy"] == "Never"
    assert "instead of preempting" in default["gpu-research"]["description"]
    for d in default.values():
        says_preempts = "may preempt" in d["description"]
        assert says_preempts == (d["preemptionPolicy"] == "PreemptLowerPriority")


_OPENMPI_ONLY = {"--allow-run-as-root", "-x", "-bind-to", "-map-by", "-np"}


def test_mpijob_launcher_flags_follow_the_mpi_implementation():
    def command(params):
        r = _render("mpijob", params, validate=True)
        assert r.valid
        return r.documents[0]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]

    openmpi = command({})
    assert openmpi[:14] == ["mpirun", "--allow-run-as-root", "-np", "16", "-bind-to", "none", "-map-by", "slot",
                            "-x", "NCCL_DEBUG=INFO", "-x", "LD_LIBRARY_PATH", "-x", "PATH"]
    for impl in ("Intel", "MPICH"):
        cmd = command({"mpi_implementation": impl, "workers": 4, "gpus": 4})
        assert not _OPENMPI_ONLY & set(cmd), (impl, cmd)
        assert cmd[:8] == ["mpirun", "-n", "16", "-ppn", "4", "-genv", "NCCL_DEBUG", "INFO"], (impl, cmd)
        assert cmd[8:] == openmpi[14:]  # the program and its arguments


def test_fsx_refuses_values_the_deployment_type_does_not_take():
    err = _refused("fsx-lustre-dynamic", {"deployment_type": "SCRATCH_2", "throughput": 200})
    assert err.parameter == "throughput" and "PERSISTENT" in str(err) and "SCRATCH_2" in str(err)
    err = _refused("fsx-lustre-dynamic", {"deployment_type": "SCRATCH_1", "throughput": 100})
    assert err.parameter == "throughput"
    err = _refused("fsx-lustre-dynamic", {"deployment_type": "PERSISTENT_2", "s3_import_path": "s3://bucket/data"})
    assert err.parameter == "s3_import_path" and "PERSISTENT_2" in str(err)
    # where they apply, both are rendered
    sc = _doc(_render("fsx-lustre-dynamic", {"deployment_type": "PERSISTENT_1", "throughput": 100,
                                             "s3_import_path": "s3://bucket/data"}), "StorageClass")["parameters"]
    assert sc["perUnitStorageThroughput"] == "100" and sc["s3ImportPath"] == "s3://bucket/data"
    # a throughput alone picks the one PERSISTENT type that offers it, and says so
    r = _render("fsx-lustre-dynamic", {"throughput": 250})
    assert _doc(r, "StorageClass")["parameters"]["deploymentType"] == "PERSISTENT_2" and r.notices
    assert "perUnitStorageThroughput" not in _doc(_render("fsx-lustre-dynamic", {}), "StorageClass")["parameters"]


def test_clusterpolicy_refuses_a_service_monitor_without_the_exporter():
    err = _refused("gpu-operator-clusterpolicy", {"dcgm_exporter": False, "dcgm_service_monitor": True})
    assert err.parameter == "dcgm_service_monitor" and "dcgm_exporter" in str(err)
    spec = _render("gpu-operator-clusterpolicy", {"dcgm_service_monitor": True}).documents[0]["spec"]
    assert spec["dcgmExporter"]["enabled"] is True and spec["dcgmExporter"]["serviceMonitor"]["enabled"] is True
    spec = _render("gpu-operator-clusterpolicy", {"dcgm_exporter": False}).documents[0]["spec"]
    assert spec["dcgmExporter"]["enabled"] is False and spec["dcgmExporter"]["serviceMonitor"]["enabled"] is False


@pytest.mark.parametrize("layout", [
    {"7g.80gb": 2},  # one 7g instance takes the whole GPU
    {"4g.40gb": 2},
    {"3g.40gb": 3},
    {"2g.20gb": 3, "1g.10gb": 2},  # 8 compute slices
    {"3g.40gb": 2, "1g.10gb": 1},  # two 3g instances take all 8 memory slices
    {"4g.40gb": 1, "3g.40gb": 1, "1g.10gb": 1},
    {"1g.10gb+me": 2},
])
def test_mig_layouts_beyond_one_gpu_are_refused(layout):
    err = _refused("mig-config", {"mig_devices": layout, "mig_strategy": "mixed"})
    assert err.parameter == "mig_devices"


def test_mig_single_strategy_takes_one_profile():
    layout = {"3g.40gb": 1, "2g.20gb": 2}
    err = _refused("mig-config", {"mig_devices": layout, "mig_strategy": "single"})
    assert err.parameter == "mig_strategy" and "mixed" in str(err)
    # layouts that fit one GPU render; a mixed layout with the strategy left out turns it mixed
    for ok in ({"3g.40gb": 1, "2g.20gb": 2}, {"4g.40gb": 1, "3g.40gb": 1}, {"4g.40gb": 1, "2g.20gb": 1, "1g.10gb": 1},
               {"3g.40gb": 1, "1g.10gb": 4}, {"2g.20gb": 3, "1g.10gb": 1}, {"1g.10gb+me": 1, "1g.10gb": 6}):
        r = _render("mig-config", {"mig_devices": ok})
        assert r.params["mig_strategy"] == "mixed" and r.notices
        assert _doc(r, "ClusterPolicy")["spec"]["mig"]["strategy"] == "mixed"
    for one in ({"7g.80gb": 1}, {"3g.40gb": 2}, {"1g.10gb": 7}):
        r = _render("mig-config", {"mig_devices": one, "mig_strategy": "single"})
        assert _doc(r, "ClusterPolicy")["spec"]["mig"]["strategy"] == "single" and not r.notices
    assert _render("mig-config", {}).params["mig_strategy"] == "single"


def test_dra_gpu_model_takes_any_case_and_compares_it_in_lower_case():
    r = _render("dra-gpu-claim-pod", {"gpu_model": "A100-SXM4-80GB"}, validate=True)
    assert r.valid and r.params["gpu_model"] == "A100-SXM4-80GB"
    selectors = r.documents[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"]
    assert selectors == [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].productName.lowerAscii()"
                                                ".contains('a100-sxm4-80gb')"}}]
    lower = _render("dra-gpu-claim-pod", {"gpu_model": "a100-sxm4-80gb"}).documents[0]
    assert lower["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == selectors


def test_lws_parallel_sizes_use_exactly_the_groups_gpus():
    def sizes(params):
        args = _doc(_render("lws-vllm", params), "LeaderWorkerSet")["spec"]["leaderWorkerTemplate"][
            "leaderTemplate"]["spec"]["containers"][0]["args"][0].split()
        return int(args[args.index("--tensor-parallel-size") + 1]), int(args[args.index("--pipeline-parallel-size") + 1])

    # 4 x 2 uses half of the 2 x 8 GPUs of a group
    err = _refused("lws-vllm", {"size": 2, "gpus": 8, "tensor_parallel": 4, "pipeline_parallel": 2})
    assert err.involved == ["tensor_parallel", "pipeline_parallel", "size", "gpus"]
    err = _refused("lws-vllm", {"size": 2, "gpus": 8, "tensor_parallel": 16, "pipeline_parallel": 2})
    assert err.parameter == "tensor_parallel"
    # one size given: the other one is worked out from the group's GPUs
    assert sizes({"size": 2, "gpus": 8, "tensor_parallel": 16}) == (16, 1)
    assert sizes({"size": 2, "gpus": 8, "pipeline_parallel": 1}) == (16, 1)
    assert sizes({"size": 4, "gpus": 8, "tensor_parallel": 8}) == (8, 4)
    assert _refused("lws-vllm", {"size": 2, "gpus": 8, "tensor_parallel": 3}).parameter == "tensor_parallel"
    assert _refused("lws-vllm", {"size": 2, "gpus": 8, "tensor_parallel": 4}).parameter == "tensor_parallel"
    # neither given: GPUs per pod and pods per group, as before
    assert sizes({}) == (8, 2)
    assert sizes({"size": 4, "gpus": 4, "tensor_parallel": 4, "pipeline_parallel": 4}) == (4, 4)


def test_keda_namespace_label_follows_the_pod_label():
    def query(params):
        return _render("keda-gpu-scaledobject", params, validate=True).documents[0]["spec"]["triggers"][0][
            "metadata"]["query"]

    q = query({"pod_label": "exported_pod", "metric": "DCGM_FI_DEV_GPU_UTIL", "namespace": "ml",
               "deployment": "llm"})
    assert q == 'sum(DCGM_FI_DEV_GPU_UTIL{exported_namespace="ml",exported_pod=~"llm-.*"})'
    assert query({}) == 'sum(vllm:num_requests_waiting{namespace="default",pod=~"llm-server-.*"})'


def test_a_vllm_replica_with_several_gpus_shards_the_model_over_them():
    from gpukb.recipes.render import render_recipe

    lib = {r.id: r for r in load_recipes(ROOT / "recipes")}
    docs = render_recipe(lib["gpu-inference-deployment"], {"model": "Qwen/Qwen2.5-32B-Instruct", "gpus": 2}).documents
    dep = next(d for d in docs if d["kind"] == "Deployment")
    args = dep["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--tensor-parallel-size") + 1] == "2"
    one = render_recipe(lib["gpu-inference-deployment"], {"model": "Qwen/Qwen2.5-7B-Instruct", "gpus": 1}).documents
    dep1 = next(d for d in one if d["kind"] == "Deployment")
    assert "--tensor-parallel-size" not in dep1["spec"]["template"]["spec"]["containers"][0]["args"]


def test_a_model_cache_pod_without_gpus_stays_off_the_gpu_nodes():
    from gpukb.recipes.render import render_recipe

    lib = {r.id: r for r in load_recipes(ROOT / "recipes")}
    pod = render_recipe(lib["model-cache-ephemeral"], {"gpus": 0}).documents[0]
    spec = pod["spec"]
    assert "affinity" not in spec and "tolerations" not in spec
    assert "nvidia.com/gpu" not in spec["containers"][0]["resources"]["limits"]
