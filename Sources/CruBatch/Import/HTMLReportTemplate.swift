import MessageTemplates

/// The page `HTMLReport` renders: one Mustache template, styles inline, no script and no link to
/// anything outside the page.
enum HTMLReportTemplate {
    static let page: HTMLTemplate = {
        do {
            return try HTMLTemplate(source, name: "built-in HTML report")
        } catch {
            preconditionFailure("the built-in HTML report template does not parse: \(error)")
        }
    }()

    static let source = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}}</title>
        <style>
        body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1f2328; margin: 24px; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
        .meta { color: #59636e; font-size: 12px; }
        .verdict { padding: 8px 12px; border-radius: 6px; background: #dafbe1; border: 1px solid #4ac26b; }
        .verdict.failed { background: #ffebe9; border-color: #ff8182; }
        table { border-collapse: collapse; margin: 4px 0 12px; }
        th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: #f6f8fa; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        td.line { color: #59636e; text-align: right; }
        td.bad { background: #ffc7ce; }
        td.bad .message { color: #82071e; font-size: 12px; margin-top: 2px; }
        .code { font-family: ui-monospace, Menlo, Consolas, monospace; }
        .warning .code { color: #9a6700; }
        .error .code { color: #cf222e; }
        td.old { background: #ffebe9; }
        td.new { background: #dafbe1; }
        ul { margin: 4px 0; }
        </style>
        </head>
        <body>
        <h1>{{title}}</h1>
        <p class="meta">crubatch {{version}}, {{date}}</p>
        <p class="verdict{{#failed}} failed{{/failed}}">{{verdict}}</p>

        <h2>Summary</h2>
        <table class="summary">
        <thead><tr>{{#summary_headers}}<th>{{.}}</th>{{/summary_headers}}</tr></thead>
        <tbody>
        {{#summary_rows}}<tr>{{#cells}}<td>{{.}}</td>{{/cells}}</tr>
        {{/summary_rows}}
        </tbody>
        </table>
        {{#has_notes}}<ul class="notes">{{#notes}}<li>{{.}}</li>{{/notes}}</ul>{{/has_notes}}

        {{#has_codes}}
        <h2>Problems by code</h2>
        <table class="codes">
        <thead><tr><th>code</th><th>count</th><th>how to fix</th><th>where</th></tr></thead>
        <tbody>
        {{#codes}}<tr class="{{severity}}" id="code-{{code}}"><td><span class="code">{{severity}}[{{code}}]</span></td><td class="number">{{count}}</td>
        <td>{{#hints}}<div class="hint">{{.}}</div>{{/hints}}</td>
        <td><ul>{{#messages}}<li>{{.}}</li>{{/messages}}</ul>{{more}}</td></tr>
        {{/codes}}
        </tbody>
        </table>
        {{/has_codes}}

        {{#sheets}}
        <h2>Rows to fix in {{file}}</h2>
        <table class="rows">
        <thead><tr><th>line</th>{{#header}}<th>{{.}}</th>{{/header}}<th>row errors</th></tr></thead>
        <tbody>
        {{#rows}}<tr id="line-{{line}}"><td class="line">{{line}}</td>{{#cells}}{{#bad}}<td class="bad" data-code="{{code}}">{{value}}{{#messages}}<div class="message">{{.}}</div>{{/messages}}</td>{{/bad}}{{^bad}}<td>{{value}}</td>{{/bad}}{{/cells}}<td>{{#row_errors}}<div class="message">{{.}}</div>{{/row_errors}}</td></tr>
        {{/rows}}
        </tbody>
        </table>
        {{#more}}<p class="more">{{more}}</p>{{/more}}
        {{/sheets}}

        {{#changes}}
        <h2>Changes to {{kind}}</h2>
        {{#has_inserted}}<h3>New rows</h3><ul class="inserted">{{#inserted}}<li>{{.}}</li>{{/inserted}}</ul>{{/has_inserted}}
        {{#has_updated}}<h3>Changed fields</h3>
        <table class="updated"><thead><tr><th>row</th><th>field</th><th>old</th><th>new</th></tr></thead>
        <tbody>{{#updated}}<tr><td>{{key}}</td><td>{{column}}</td><td class="old">{{old}}</td><td class="new">{{new}}</td></tr>
        {{/updated}}</tbody></table>{{/has_updated}}
        {{#has_restored}}<h3>Restored rows</h3><ul class="restored">{{#restored}}<li>{{.}}</li>{{/restored}}</ul>{{/has_restored}}
        {{#has_archived}}<h3>Archived rows</h3><ul class="archived">{{#archived}}<li>{{.}}</li>{{/archived}}</ul>{{/has_archived}}
        {{/changes}}
        </body>
        </html>

        """
}
