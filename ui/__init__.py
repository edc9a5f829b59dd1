"""Streamlit helpers shared by the pages (never imported by cgdcore)."""
