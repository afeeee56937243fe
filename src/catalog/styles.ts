// The catalog's only stylesheet, inlined in every page (the CSP allows inline styles and no
// other source). Mobile first; colours meet WCAG AA contrast in light and dark schemes.
export const CATALOG_CSS = `
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#4a4a55;--bg:#fff;--panel:#f3f4f6;--line:#cfd3da;--link:#0b57d0;--accent:#0b57d0;--on-accent:#fff;--focus:#c2410c}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#b8b8c4;--bg:#16171b;--panel:#22242a;--line:#3b3e47;--link:#93bbf9;--accent:#93bbf9;--on-accent:#0c1a33;--focus:#fdba74}}
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-100vw;top:.5rem;padding:.5rem 1rem;background:var(--bg);z-index:1}
.skip:focus{left:.5rem}
.wrap{max-width:66rem;margin:0 auto;padding:0 1rem}
.site{border-bottom:1px solid var(--line)}
.site .wrap{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem 1.25rem;padding-block:.75rem}
.brand{font-weight:700;font-size:1.25rem;text-decoration:none;color:var(--fg)}
.site nav a{margin-right:1rem}
main{padding-block:1rem 2rem}
h1{font-size:1.75rem;line-height:1.2;margin:.5rem 0 1rem}
.title-row{display:flex;flex-wrap:wrap;align-items:baseline;column-gap:1rem}
.title-row h1{margin-bottom:.5rem}
.license{margin:0 0 .5rem;font-size:.875rem}
h2{font-size:1.25rem;margin:2rem 0 .5rem}
.muted,.hint{color:var(--muted)}
.description{white-space:pre-line;max-width:46rem}
.hint{font-size:.9rem}
form.search{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;padding:1rem;background:var(--panel);border-radius:.5rem}
form.search div{display:flex;flex-direction:column;gap:.25rem}
form.search .q{flex:1 1 16rem}
form.search .hint{flex-basis:100%;margin:0}
input,select,button{font:inherit;min-height:2.75rem;padding:.4rem .6rem;border:1px solid var(--muted);border-radius:.375rem;background:var(--bg);color:var(--fg)}
button,.button{background:var(--accent);color:var(--on-accent);border-color:var(--accent);font-weight:600;cursor:pointer}
.button{display:inline-block;padding:.55rem 1rem;border-radius:.375rem;text-decoration:none;margin:0 .5rem .5rem 0}
.notice{padding:.75rem 1rem;border-left:4px solid var(--focus);background:var(--panel)}
ol.datasets{list-style:none;padding:0;margin:0}
ol.datasets>li{padding:1rem 0;border-bottom:1px solid var(--line)}
ol.datasets h2{margin:0 0 .25rem;font-size:1.15rem}
ol.datasets p{margin:.25rem 0}
ul.tags{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;padding:0;margin:.4rem 0}
ul.tags a{display:inline-block;padding:.1rem .6rem;border:1px solid var(--line);border-radius:1rem;text-decoration:none;font-size:.875rem}
.pager{display:flex;gap:1.5rem;margin-top:1.5rem}
.preview-pager,.jump,.acts{flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
.jump,.acts{display:flex}
.jump input{width:8rem}
.pointer{overflow-x:auto;white-space:pre;padding:.5rem;background:var(--bg)}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:0}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0}
dl.meta ul.tags{margin:0}
.scroll{overflow:auto;max-width:100%;border:1px solid var(--line);border-radius:.375rem}
.scroll.tall{max-height:max(24rem,75vh)}
table{border-collapse:collapse;font-size:.875rem;min-width:100%}
caption{text-align:left;padding:.5rem .6rem;color:var(--muted)}
th,td{padding:.35rem .6rem;border-top:1px solid var(--line);text-align:left;vertical-align:top;white-space:nowrap}
td{max-width:22rem;overflow:hidden;text-overflow:ellipsis;unicode-bidi:plaintext}
thead th{background:var(--panel);position:sticky;top:0}
tbody th{color:var(--muted);font-weight:400;text-align:right}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th.num{text-align:right}
th .type{display:block;color:var(--muted);font-weight:400;font-size:.75rem}
.cols{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(min(17rem,100%),1fr));gap:1rem}
.cols>li{min-width:0;padding:.75rem;border:1px solid var(--line);border-radius:.5rem}
.cols h3{margin:0 0 .5rem;font-size:1rem}
.cols table{margin-top:.5rem}
.cols caption{padding:0 0 .25rem}
.cols th,.cols td{white-space:normal;padding:.25rem .4rem}
.cols tbody th{color:var(--fg);font-weight:400;text-align:start}
.cols td,.cols th+th{width:1%;white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}
.stats{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:0;font-size:.875rem}
.stats dt{color:var(--muted)}
.stats dd{margin:0}
.chart{margin-top:.75rem}
.chart summary{display:block;list-style:none;cursor:pointer;border-radius:.375rem}
.chart summary::-webkit-details-marker{display:none}
.hist{display:block;width:100%;height:3.5rem}
.hist path,.bar rect{fill:var(--accent)}
.hist rect{fill:var(--muted)}
.bar{display:block;width:100%;height:.25rem;margin-top:.2rem}
.axis{display:flex;justify-content:space-between;gap:.5rem;font-size:.75rem;color:var(--muted)}
@media (forced-colors:active){.hist path,.bar rect{fill:CanvasText}}
.more{color:var(--link);text-decoration:underline;font-size:.875rem}
.more::before{content:"";display:inline-block;margin-right:.4rem;border:.3rem solid transparent;border-left:.45rem solid}
[open] .more::before{transform:translateY(.15rem) rotate(90deg)}
pre{background:var(--panel);padding:.75rem 1rem;border-radius:.375rem;white-space:pre-wrap;overflow-wrap:anywhere;user-select:all}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
footer{border-top:1px solid var(--line);padding-block:1rem;color:var(--muted);font-size:.9rem}
@media (max-width:34rem){h1{font-size:1.45rem}}
`;
