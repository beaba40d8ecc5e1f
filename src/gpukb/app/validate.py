"""The Validate page: paste or upload manifests; schema validation and GPU
lint findings with their fixes and links to the KB. An optional cluster
profile (YAML) turns on the rules that need cluster facts."""

from __future__ import annotations

import io
from typing import Any

import streamlit as st

__all__ = ["render", "check_manifests", "parse_profile", "split_findings", "MAX_MANIFEST_BYTES", "EXAMPLE"]

MAX_MANIFEST_BYTES = 1_000_000
K_TEXT, K_UPLOAD, K_PROFILE = "val_text", "val_upload", "val_profile"

EXAMPLE = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda-test
spec:
  containers:
    - name: cuda
      image: nvidia/cuda:12.4.0-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/gpu: 0.5
"""

PROFILE_EXAMPLE = """\
mig_strategy: mixed
time_slicing: {replicas: 4, rename_by_default: false}
gpu_node_taints:
  - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}
schedulers: [default-scheduler, volcano]
volcano_queues: [default, research]
"""


def parse_profile(text: str, source: str = "profile") -> Any:
    """A cluster profile from YAML text; raises the library's ConfigError on problems."""
    import yaml

    from gpukb.errors import ConfigError
    from gpukb.lint import profile_from_dict

    from .forms import yaml_bounds_problem

    if len(text.encode("utf-8", "replace")) > 200_000:
        raise ConfigError(f"{source}: the profile is too large")
    problem = yaml_bounds_problem(text, 20_000)
    if problem:
        raise ConfigError(f"{source}: {problem}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}:" if mark is not None else ""
        raise ConfigError(f"{source}:{where} invalid YAML") from None
    return profile_from_dict(data, source)


def check_manifests(text: str, profile: Any = None) -> dict[str, Any]:
    """Validate and lint ``text``: ``{"validate": Report, "lint": Report}`` or ``{"error": msg}``."""
    from gpukb import lint_files, validate_files

    from .forms import yaml_bounds_problem
    from .state import short_error

    if len(text.encode("utf-8", "replace")) > MAX_MANIFEST_BYTES:
        return {"error": f"the manifests are larger than {MAX_MANIFEST_BYTES // 1000} kB; check fewer at a time"}
    problem = yaml_bounds_problem(text)
    if problem:
        return {"error": problem}
    try:
        val = validate_files(["-"], stdin=io.StringIO(text), allow_unknown=True)
        lint = lint_files(["-"], stdin=io.StringIO(text), profile=profile)
    except Exception as exc:
        return {"error": short_error(exc)}
    return {"validate": val, "lint": lint}


def split_findings(val: Any, lint: Any) -> tuple[list[tuple[str, Any, Any]], list[tuple[str, Any, Any]]]:
    """(validator findings, lint findings not already reported by the validator):
    a problem both find (same rule, document and path, or a parse error) shows once."""
    from .views import findings_of

    val_items = findings_of(val)
    seen = {(d.index, f.rule, f.path) for _, d, f in val_items}
    lint_items = [(p, d, f) for p, d, f in findings_of(lint)
                  if f.rule != "yaml-parse" and (d.index, f.rule, f.path) not in seen]
    return val_items, lint_items


def _load_example() -> None:
    st.session_state[K_TEXT] = EXAMPLE


def render() -> None:
    """The Validate page."""
    from .state import kb_by_id, short_error
    from .views import render_findings

    st.title("Validate manifests")
    st.caption("Schema validation (Kubernetes and the bundled CRDs) and GPU-specific lint, "
               "with the fix and the KB doc for each finding.")

    tab_paste, tab_upload = st.tabs(["Paste", "Upload"])
    with tab_paste:
        text = st.text_area("YAML manifests", key=K_TEXT, height=300,
                            placeholder="apiVersion: v1\nkind: Pod\n…", max_chars=MAX_MANIFEST_BYTES)
        st.button("Load an example", on_click=_load_example, key="val_example")
    with tab_upload:
        upload = st.file_uploader("YAML files", type=["yaml", "yml"], accept_multiple_files=True,
                                  key=K_UPLOAD, max_upload_size=1)

    with st.expander("Cluster profile (optional)"):
        st.markdown("Rules that need cluster facts (MIG strategy, time-slicing, GPU taints, schedulers, "
                    "queues) run only with a profile. Example:")
        st.code(PROFILE_EXAMPLE, language="yaml")
        prof_file = st.file_uploader("Profile YAML", type=["yaml", "yml"], key=K_PROFILE, max_upload_size=1)

    profile = None
    if prof_file is not None:
        try:
            raw = prof_file.getvalue()
            profile = parse_profile(raw.decode("utf-8"), prof_file.name)
            st.caption(f"Using the cluster profile `{prof_file.name}`.")
        except UnicodeDecodeError:
            st.error(f"{prof_file.name}: not UTF-8 text")
            return
        except Exception as exc:
            st.error(short_error(exc))
            return

    sources: list[tuple[str, str]] = []
    for f in upload or []:
        try:
            sources.append((f.name, f.getvalue().decode("utf-8")))
        except UnicodeDecodeError:
            st.error(f"{f.name}: not UTF-8 text")
    if text and text.strip():
        sources.insert(0, ("pasted YAML", text))
    if not sources:
        st.info("Paste YAML or upload files to check them.", icon=":material/info:")
        return

    try:
        docs_by_id = kb_by_id()
    except Exception:
        docs_by_id = {}
    for name, body in sources:
        if len(sources) > 1:
            st.subheader(name)
        result = check_manifests(body, profile)
        if "error" in result:
            st.error(result["error"])
            continue
        val_items, lint_items = split_findings(result["validate"], result["lint"])
        ndocs = sum(len(f.documents) for f in result["validate"].files)
        every = [x[2] for x in val_items + lint_items]
        errors = sum(1 for f in every if f.severity == "error")
        warnings = sum(1 for f in every if f.severity == "warning")
        summary = f"{ndocs} document(s): {errors} error(s), {warnings} warning(s)."
        (st.error if errors else st.warning if warnings else st.success)(summary)
        st.markdown("**Schema validation**")
        render_findings(val_items, docs_by_id, empty="Every document passes schema validation.")
        st.markdown("**GPU lint**")
        render_findings(lint_items, docs_by_id, empty="No GPU lint findings.")
