"""adacomp-report's modules: model (reading reports), text (the summary),
compare, csvout, plots, html; cli ties them together."""
