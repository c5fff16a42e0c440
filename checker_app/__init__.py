"""The application: pipeline (question to report), report model, model mode, CLI and Streamlit pages."""
