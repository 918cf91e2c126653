"""`diavolo serve`: the drill, the variant explorer, a player's progress and reports in the browser.

`app.create_app` builds the Starlette application over one drill log;
`server.serve` runs it on uvicorn. `trials` checks and logs what a browser
sends, `api` answers the pages' JSON calls, `explore` the explorer's edited variants, `pages` renders the pages from
`templates/`, and `security` guards every request. The pages' scripts and
styles are in `static/`, served by the package itself.
"""
