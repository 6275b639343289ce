// The one layout of every e-mail, as an HTML part and a plain-text part. Values are inserted with {{ }} only, so
// handlebars escapes them; never {{{ }}} (triple-stash) here: an item name or a message could carry markup.

export const HTML_LAYOUT = `<!doctype html>
<html lang="{{language}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{subject}}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f5;">
<div style="max-width:560px;margin:0 auto;padding:24px;font-family:Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#18181b;">
<p style="font-size:22px;font-weight:bold;margin:0 0 24px;">Homing</p>
<div style="background:#ffffff;border-radius:8px;padding:24px;">
<p>{{greeting}}</p>
{{#each intro}}
<p>{{this}}</p>
{{/each}}
{{#if code}}
<p style="font-family:Menlo,Consolas,monospace;font-size:28px;letter-spacing:4px;font-weight:bold;margin:24px 0;">{{code}}</p>
{{/if}}
<p style="margin:24px 0;"><a href="{{actionUrl}}" style="background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block;">{{action}}</a></p>
<p style="font-size:13px;color:#52525b;">{{linkHint}}<br><a href="{{actionUrl}}" style="color:#1d4ed8;word-break:break-all;">{{actionUrl}}</a></p>
{{#each outro}}
<p>{{this}}</p>
{{/each}}
<p>{{signature}}</p>
</div>
<p style="font-size:12px;color:#71717a;margin-top:16px;">{{footer}}</p>
</div>
</body>
</html>
`;

export const TEXT_LAYOUT = `{{greeting}}

{{#each intro}}
{{this}}

{{/each}}
{{#if code}}
    {{code}}

{{/if}}
{{action}}: {{actionUrl}}

{{#each outro}}
{{this}}

{{/each}}
{{signature}}

--
{{footer}}
`;
