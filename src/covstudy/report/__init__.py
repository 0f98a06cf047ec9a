"""What a finished study is shown as: report.md/report.tex (markdown) and the interactive report.html
(explorer, with explorer.js and explorer.css). The figure kinds are in covstudy.plots beside it."""
