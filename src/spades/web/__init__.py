"""The browser front end: static pages (HTML, CSS, JavaScript modules, no build step) served at ``/``,
and the HTTP endpoints they need besides table play (``spades.web.api``).

Wire it into an application with ``spades.web.api.mount(app)``.
"""
