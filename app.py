"""Streamlit entry point: ``streamlit run app.py``. The pages live in ``gpukb.app``."""

from gpukb.app import main

main()
