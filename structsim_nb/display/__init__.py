"""What a person reads: the self-contained report page and its blocks, and the interactive explorer.

`page` holds the reusable blocks of a standalone HTML page (tiles, glossary, charts, interactive tables);
`report_page` puts a report's page together from them; `case_view` orders a report's cases worst first and gives
each its truth, prediction and marks, which `marks` finds; `explore` is the ipywidgets explorer. `assets/` holds
the page's stylesheet and script, written inline. Charts live in `structsim_nb.plot`.
"""
