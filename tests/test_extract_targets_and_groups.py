"""Requests that name what an autoscaler scales in general words, a gang's least size said as "at least N
up", a word said of every listed object at once, and preemption asked as a yes/no question."""

import pytest

from gpukb.recipes import generate


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("text,deployment", [
    ("The HPA on `sd-inference` (ns imagegen) currently goes 1->4 replicas; make it min 2, max 10, target 80% gpu util",
     "sd-inference"),
    ("Our embedding service `embedder` (namespace `search`) runs one T4 per pod. autoscale it between 2 and 6 "
     "replicas, aiming at 75% average GPU utilization", "embedder"),
    ("our embedding service `e5-embed` in `rag`: can KEDA scale it down to nothing when idle, up to 5 pods, "
     "scale on vllm:num_requests_running, 10 per pod", "e5-embed"),
])
def test_the_one_name_given_is_what_the_autoscaler_scales(text, deployment):
    g = gen(text)
    assert g.params["deployment"] == deployment, g.params


def test_an_autoscalers_own_name_is_not_its_target():
    g = gen("hpa named foo-hpa, 2 to 5 replicas on gpu util")
    assert g.params["name"] == "foo-hpa" and "deployment" not in g.from_request, g.params


@pytest.mark.parametrize("text,zero", [
    ("keda for `e5-embed`: scale it down to nothing when nobody's calling it, up to 5 pods", True),
    ("put `codegen-api` on KEDA off the vLLM queue so it can go all the way down to zero, never more than five replicas", True),
    ("keda scaledobject for deployment sdxl, max twelve replicas. Don't drop to zero before 20 minutes", False),
])
def test_scaling_down_to_nothing_is_no_replicas_at_all(text, zero):
    g = gen(text)
    assert (g.params.get("min_replicas") == 0 and "min_replicas" in g.from_request) is zero, g.params


def test_machines_spoken_of_after_a_correction_are_no_second_value():
    g = gen("pytorchjob, 3 nodes w/ 8 gpus each, actually make that 4 gpus per node, the 8-gpu boxes are all taken. "
            "call it whisper-ft.")
    assert (g.params["nodes"], g.params["gpus"]) == (3, 4), g.params


@pytest.mark.parametrize("text,param", [
    ("Volcano job gnn-train, queue graph. 6 workers with 2 GPUs each, and the job shouldn't start unless at least 4 "
     "of them can be placed.", "min_available"),
    ("Volcano job fold-v3, six workers with 8 GPUs each, queue bio-long. It makes progress as long as at least 4 "
     "workers are up, so don't make the gang wait for all six.", "min_available"),
    ("coscheduling: Job hvd-sweep in research, 6 pods with 2 GPUs each; at least 4 need to be up before starting, "
     "the rest can trickle in.", "min_member"),
])
def test_at_least_n_up_is_the_least_a_gang_starts_with(text, param):
    g = gen(text)
    assert g.params[param] == 4, g.params


def test_a_word_said_of_every_listed_object_fills_each():
    g = gen("could we have one priority class per tenant? nlp-tenant at 5000, vision-tenant at 4000 and speech-tenant "
            "at 3000. none of them is allowed to kick out anybody else's pods, they just wait in line.")
    assert [(c["name"], c["value"], c.get("preempt")) for c in g.params["classes"]] == [
        ("nlp-tenant", 5000, False), ("vision-tenant", 4000, False), ("speech-tenant", 3000, False)]
    assert {d["preemptionPolicy"] for d in g.documents} == {"Never"}
    g = gen("priority classes: web 900, batch 500 and idle 10. all of them may preempt lower ones.")
    assert [(c["name"], c["value"], c.get("preempt")) for c in g.params["classes"]] == [
        ("web", 900, True), ("batch", 500, True), ("idle", 10, True)]
    # a class's own word stays its own
    g = gen("priority classes: prod-a at 1000 (may preempt), dev-b at 10. none of them should be the global default")
    assert [c.get("preempt") for c in g.params["classes"]] == [True, None], g.params


@pytest.mark.parametrize("text,preempt", [
    ("New tenant request form\nTeam name: genomics\nGPUs needed: twelve\nMay their jobs bump lower-priority work? Yes\n"
     "Priority value: 5000", True),
    ("New tenant request form\nTeam name: genomics\nGPUs needed: twelve\nMay their jobs bump lower-priority work? No\n"
     "Priority value: 5000", False),
    ("New team onboarding: robotics. GPU budget: twenty GPUs. priority: 2500, and they're allowed to bump "
     "lower-priority work", True),
    ("onboard team x, 8 gpus, priority 100, not allowed to preempt anyone", False),
])
def test_preemption_asked_and_answered(text, preempt):
    g = gen(text)
    assert g.params["preempt"] is preempt and "preempt" in g.from_request, g.params


@pytest.mark.parametrize("text,want", [
    ("CA priority expander config: try `.*a100-spot.*` first (priority 100), then `.*a100-ondemand.*` at 50, then "
     "`.*cpu-only.*` at 5. No catch-all at the bottom.",
     {".*a100-spot.*": 100, ".*a100-ondemand.*": 50, ".*cpu-only.*": 5}),
    ("Cost rule for the autoscaler: spot GPU groups first (pattern `.*-g5-spot-.*`, priority 100), then on-demand "
     "(`.*-g5-od-.*`, 50), and p4d (`.*-p4d-.*`) only as a last resort at priority 1.",
     {".*-g5-spot-.*": 100, ".*-g5-od-.*": 50, ".*-p4d-.*": 1}),
    ("CA priority expander pls. .*a10g-spot.* prio 100, .*a10g-od.* prio 50, and the p4d groups (.*p4d-od.*) only as "
     "last resort at 10. no catch-all for the other groups",
     {".*a10g-spot.*": 100, ".*a10g-od.*": 50, ".*p4d-od.*": 10}),
    ("I want a strict order: the `.*l4-spot.*` groups get priority 90, `.*l4-ondemand.*` gets 60, and "
     "`.*p5-ondemand.*` gets 10. Do NOT let it fall through to any other group",
     {".*l4-spot.*": 90, ".*l4-ondemand.*": 60, ".*p5-ondemand.*": 10}),
])
def test_expander_tiers_said_each_in_its_own_way(text, want):
    g = gen(text)
    assert g.params["priorities"] == want, g.params
    # (a catch-all for the other groups stays unless the request rules it out)
    assert g.params["other_groups"] is ("last resort at priority 1" in text), g.params


def test_mig_devices_read_by_the_first_rule_that_reads_them():
    g = gen("mig layout name=mixed-h100 devices: 3g.40gb x1 + 1g.10gb x4, strategy=mixed")
    assert g.params["mig_devices"] == {"3g.40gb": 1, "1g.10gb": 4}, g.params


@pytest.mark.parametrize("text,want", [
    ("For the 8-worker run `fm-pretrain`, 8 GPUs per pod: spread evenly across availability zones, a difference of "
     "at most 2 between zones, but if that's impossible still schedule them. On top of that, one pod per node as a "
     "hard rule.", ("topology.kubernetes.io/zone", 2, "ScheduleAnyway", "kubernetes.io/hostname", "DoNotSchedule")),
    ("For the 8-pod `dlrm-train` job (4 GPUs per pod): spread the pods across availability zones, and the difference "
     "between the fullest and the emptiest zone must never be more than 2 pods, strictly enforced. On top of that, "
     "try to keep them on separate nodes, but that part is best-effort.",
     ("topology.kubernetes.io/zone", 2, "DoNotSchedule", "kubernetes.io/hostname", "ScheduleAnyway")),
])
def test_a_second_spread_said_on_top_of_the_first(text, want):
    p = gen(text).params
    assert (p["topology_key"], p["max_skew"], p["when_unsatisfiable"], p.get("also_spread_over"),
            p.get("also_when_unsatisfiable")) == want, p


@pytest.mark.parametrize("text,recipe,replicas,reject", [
    ("time-slice every GPU 6 ways. Pods that ask for more than one slice must still be accepted (some request 2).",
     "time-slicing", 6, False),
    ("could we have the T4 nodes shared between students? Up to six notebooks on each card is fine. Advertise them as "
     "nvidia.com/gpu.shared. It's ok if a notebook asks for 2 slices, don't reject those.", "time-slicing", 6, False),
    ("Our inference pods barely use 10% of an A100 each. Could we let seven of them share one GPU with MPS instead of "
     "time slicing?", "mps-sharing", 7, None),
])
def test_how_many_share_one_gpu(text, recipe, replicas, reject):
    g = gen(text)
    assert (g.recipe, g.params["replicas"]) == (recipe, replicas), g.params
    if reject is not None:
        assert g.params["fail_requests_greater_than_one"] is reject, g.params


@pytest.mark.parametrize("text,want", [
    ("INFRA-5521 Create Volcano queue for the speech team\n\n- queue name: speech\n- hard cap: 48 GPUs, 384 cores\n"
     "- under contention they should get 32 GPUs\n- 8 GPUs always reserved for them, even when idle\n- weight 3\n"
     "- whatever they borrow must NOT be reclaimable by other queues", (48, 32, 8, False)),
    ("Could we have a Volcano queue for the speech group? They should never go above 24 GPUs, their fair share when "
     "the cluster is busy is 16, and 8 of those should stay reserved for them even while they're idle. Other queues "
     "must not be able to reclaim from them. Name it speech.", (24, 16, 8, False)),
])
def test_a_queues_cap_share_and_reserve_in_plain_words(text, want):
    p = gen(text).params
    assert (p["gpus"], p["deserved_gpus"], p["guarantee_gpus"], p["reclaimable"]) == want, p


def test_a_total_being_divided_is_no_second_value():
    g = gen("We're splitting the 64 H100s of the `lab` cohort between three teams: nlp gets 32, vision 16. Kueue "
            "objects for nlp only: namespace nlp, nominal 32 GPUs on the H100 flavor, borrow up to 16 more")
    assert (g.recipe, g.params["gpus"], g.params["borrowing_limit"]) == ("kueue-cluster-queue", 32, 16), g.params


def test_a_new_object_at_another_size_than_the_one_described():
    g = gen("the `imagenet-shared` PVC in ns `cv` is 500Gi RWX on efs-sc and it's full. can you give me the manifest "
            "for a new one at 2 TB, read-only for the pods, storage class `filestore-rwx`, same name")
    assert (g.params["size"], g.params["storage_class"]) == ("2Ti", "filestore-rwx"), g.params


def test_kubectl_describe_output_is_what_is_set_today():
    g = gen("$ kubectl describe quota gpu-quota -n recsys\nName:                    gpu-quota\n"
            "Namespace:               recsys\nResource                 Used   Hard\n--------                 ----   ----\n"
            "limits.cpu               48     48\nlimits.memory            200Gi  256Gi\n"
            "requests.nvidia.com/gpu  8      8\n\nThe team got budget approval to double their GPUs (so sixteen) and to "
            "go to 96 cores and 512Gi. The per-pod GPU max stays at 8. Can I get the updated manifests?")
    p = g.params
    assert (p["namespace"], p["gpus"], p["cpu"], p["memory"], p["max_gpus_per_pod"]) == ("recsys", 16, 96, "512Gi", 8), p


def test_a_two_column_markdown_table_is_a_form():
    g = gen("Quota for the `fraud-ml` namespace:\n\n| Resource | Limit |\n|---|---|\n| GPUs (total, whole namespace) | 12 |\n"
            "| GPUs per pod | no more than 3 |\n| CPU cores | 96 |\n| Memory | 384Gi |\n| Pods | 40 |\n\n"
            "Containers that don't set anything should default to 2 cores and 4Gi.")
    p = g.params
    assert (p["gpus"], p["max_gpus_per_pod"], p["cpu"], p["memory"], p["max_pods"], p["default_cpu"]) == (
        12, 3, 96, "384Gi", 40, "2"), p
    # a label's bracketed words qualify it; a rate's base still names the parameter that has it
    g = gen("Quota for ns fraud-ml:\nGPUs: 12\nGPUs per pod: 3\nCPU cores: 96")
    assert (g.params["gpus"], g.params["max_gpus_per_pod"]) == (12, 3) and "max_pods" not in g.from_request, g.params


def test_a_helm_values_paste_names_the_recipe_with_all_its_keys():
    g = gen("Current Helm values of our reranker:\n\n```yaml\nname: bge-reranker\nnamespace: search\nreplicas: 2\n"
            "gpus: 1\nimage: ghcr.io/huggingface/text-embeddings-inference:1.5\nport: 8080\nhealthPath: /health\n"
            "memory: 16Gi\n```\n\nChange it to 4 replicas. And please set an imagePullSecret `regcred`.")
    assert g.recipe == "gpu-inference-deployment", g.recipe
    assert (g.params["name"], g.params["replicas"], g.params["health_path"]) == ("bge-reranker", 4, "/health"), g.params


def test_a_kind_asked_by_its_own_name():
    g = gen('resource "volcano_queue" "genomics" {\n  name       = "genomics"\n  gpu_cap    = 40\n  cpu_cap    = 320\n}\n\n'
            "There's no Terraform provider for Volcano. Can you write the real Queue YAML for it?")
    assert (g.recipe, g.params["gpus"], g.params["cpu"]) == ("volcano-queue", 40, 320), g.params


@pytest.mark.parametrize("text,param,want", [
    ("pytorchjob sdxl-run on two machines with eight GPUs each. Also the \"shared memory\" thing: a colleague told me "
     "the data loader crashes unless it's at least 64 gigs.", "shm_size", "64Gi"),
    ("dataset volume `imagenet-21k` in ns vision, two and a half TB, storage class `cephfs`, read only", "size", "2560Gi"),
    ("quota for ns genomics: 24 GPUs. Containers that don't set anything should default to 2 CPUs and 4 gigs.",
     "default_memory", "4Gi"),
])
def test_amounts_said_loosely(text, param, want):
    assert gen(text).params[param] == want


def test_plain_nouns_at_a_number_are_no_priority_class():
    g = gen("two priority classes pls: `tier1-prod` at two million and `tier3-research` at 500. research should still "
            "be able to preempt the even-lower stuff (we have scavenger pods at 0)")
    names = {d["metadata"]["name"]: d["value"] for d in g.documents}
    assert names == {"tier1-prod": 2000000, "tier3-research": 500}, names


def test_an_exception_to_what_is_said_of_every_object():
    g = gen("three priority classes: gold at 100000, silver at 10000 and bronze at 100 — all three may preempt lower "
            "ones except bronze which never preempts")
    assert [(c["name"], c.get("preempt")) for c in g.params["classes"]] == [
        ("gold", True), ("silver", True), ("bronze", False)], g.params
