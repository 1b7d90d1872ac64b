import { test } from "node:test";
import assert from "node:assert/strict";
import { markdownToHTML, safeURL } from "../scripts/markdown.mjs";

test("markdownToHTML never passes model HTML through", async (t) => {
  const cases = [
    { name: "tags are escaped", in: "<img src=x onerror=alert(1)>", want: "<p>&lt;img src=x onerror=alert(1)&gt;</p>" },
    { name: "bold, italic, code", in: "**Jump** *drive* `2D`", want: "<p><strong>Jump</strong> <em>drive</em> <code>2D</code></p>" },
    { name: "http link kept", in: "[SRD](https://example.org/a?b=1&c=2)", want: '<p><a href="https://example.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer nofollow">SRD</a></p>' },
    { name: "javascript link dropped to text", in: "[click](javascript:alert(1))", want: "<p>click</p>" },
    { name: "data link dropped to text", in: "[x](data:text/html,hi)", want: "<p>x</p>" },
    { name: "quote in link text escaped", in: '[a"b](http://x.y/)', want: '<p><a href="http://x.y/" target="_blank" rel="noopener noreferrer nofollow">a&quot;b</a></p>' },
    { name: "list", in: "- one\n- two", want: "<ul><li>one</li><li>two</li></ul>" },
    { name: "code block escaped", in: "```\n<b>x</b>\n```", want: "<pre><code>&lt;b&gt;x&lt;/b&gt;</code></pre>" },
    { name: "heading", in: "# Repairs", want: "<h3>Repairs</h3>" },
  ];
  for (const c of cases) await t.test(c.name, () => assert.equal(markdownToHTML(c.in), c.want));
});

test("safeURL", () => {
  assert.equal(safeURL("https://a.b/"), true);
  assert.equal(safeURL("http://a.b/"), true);
  assert.equal(safeURL("javascript:alert(1)"), false);
  assert.equal(safeURL("/relative"), false);
});
