"""The app's server: ``streamlit run serve.py`` (``make app``) serves app.py through Streamlit's own ASGI application
(``st.App``, its documented way to add middleware) with three additions for a server many people share:

- every HTTP request counts as drawing a page (ui/priority.py): while a new browser fetches the app's scripts and
  fonts, or a page its lazily loaded elements, the heavy runs in progress step aside, as they do for script runs;
- a page's HTML tells the app where its server is (``window.__streamlit.BACKEND_BASE_URL``, the frontend's hosting
  setting): opened at a page's address (``/datasets``), the frontend otherwise first asks ``/datasets/_stcore/health``,
  gets a 404 and asks again 100 ms later at the root (streamlit/streamlit#7074);
- small responses are sent at once (``TCP_NODELAY``): the body of each small script, health check or element chunk
  on a kept-alive connection waited 40 ms for the browser's delayed ACK.

``streamlit run app.py`` serves the same app without them.
"""
from starlette.middleware import Middleware
from streamlit import App

from ui.asgi import SharedServerMiddleware, server_lifespan

app = App("app.py", middleware=[Middleware(SharedServerMiddleware)], lifespan=server_lifespan)
