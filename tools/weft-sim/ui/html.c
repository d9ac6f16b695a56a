/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML page: one file, no external resources.  The trace is embedded
 * as a JavaScript array; buttons step back and forward, the ring is drawn
 * as `show` draws it, the log is beside it with the current step marked.
 * A URL hash "#steps=N" clicks forward N times on load, and the page keeps
 * its state in the DOM (data-step, #current), so a headless browser can
 * check it with --dump-dom. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/html.h"
#include "ui/picture.h"

static char *picture_now(void)
{
    sbuf b = {0};
    picture_draw(&b, false);
    return b.s ? b.s : strdup("");
}

void trace_rec_init(trace_rec *r, const char *title)
{
    memset(r, 0, sizeof *r);
    r->title = strdup(title ? title : "");
}

void trace_rec_initial(trace_rec *r)
{
    free(r->pic0);
    r->pic0 = picture_now();
}

void trace_rec_step(trace_rec *r, const char *line)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->lines = realloc(r->lines, sizeof(char *) * (size_t)r->cap);
        r->pics = realloc(r->pics, sizeof(char *) * (size_t)r->cap);
        r->notes = realloc(r->notes, sizeof(char *) * (size_t)r->cap);
    }
    r->notes[r->n] = r->pending;
    r->pending = NULL;
    r->lines[r->n] = strdup(line);
    r->pics[r->n] = picture_now();
    r->n++;
}

void trace_rec_note(trace_rec *r, const char *note)
{
    size_t k = r->pending ? strlen(r->pending) + 1 : 0;
    char *p = realloc(r->pending, k + strlen(note) + 1);
    if (!p)
        return;
    if (k)
        p[k - 1] = '\n';
    strcpy(p + k, note);
    r->pending = p;
}

void trace_rec_free(trace_rec *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->lines[i]);
        free(r->pics[i]);
        free(r->notes[i]);
    }
    free(r->notes);
    free(r->pending);
    free(r->lines);
    free(r->pics);
    free(r->pic0);
    free(r->title);
    memset(r, 0, sizeof *r);
}

/* A JavaScript string literal; '<' is escaped so that no "</script>" can
 * end the script early. */
static void js_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '<')
            fputs("\\u003c", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

static const char *const style =
    "body{font-family:sans-serif;margin:1em;background:#fafafa}"
    "pre{font-family:monospace;font-size:13px}"
    "#main{display:flex;gap:1.5em;align-items:flex-start}"
    /* the picture keeps the width of its widest line; the log takes the
     * rest and scrolls, so the two never overlap */
    "#picture{background:#fff;border:1px solid #ccc;padding:.6em;"
    "flex:none;min-width:34em;margin:0}"
    "#log{font-family:monospace;font-size:12px;max-height:80vh;"
    "overflow:auto;margin:0;padding-left:3.5em;flex:1 1 0;min-width:0}"
    "#log li{white-space:pre;color:#999}#log li.done{color:#000}"
    "#log li.cur{background:#ffe58a}#log li.note{color:#b00;list-style:none}"
    "#current{font-family:monospace;font-size:13px;background:#ffe58a;"
    "padding:.3em}"
    "#verdict{color:#b00;font-weight:bold}"
    "button{font-size:14px;margin-right:.3em}";

static const char *const script =
    "const pic=document.getElementById('picture'),"
    "log=document.getElementById('log'),"
    "cur=document.getElementById('current'),"
    "pos=document.getElementById('pos');\n"
    "let at=0;\n"
    "STEPS.forEach((s,i)=>{if(!i)return;"
    "const li=document.createElement('li');li.value=i;"
    "li.textContent=s.line;li.id='step'+i;log.appendChild(li);"
    "if(s.note){const n=document.createElement('li');n.textContent=s.note;"
    "n.className='note';log.appendChild(n);}});\n"
    "function render(){pic.textContent=STEPS[at].pic;"
    "cur.textContent=at?STEPS[at].line:'(initial state: no step yet)';"
    "pos.textContent='step '+at+' / '+(STEPS.length-1);"
    "document.body.dataset.step=at;"
    "for(let i=1;i<STEPS.length;i++){const "
    "li=document.getElementById('step'+i);"
    "li.className=i<at?'done':i==at?'done cur':'';}"
    "const c=document.getElementById('step'+at);"
    "if(c&&c.scrollIntoView)c.scrollIntoView({block:'nearest'});"
    /* the layout as Chromium laid it out, for tests/sim/html_check.sh */
    "const p=pic.getBoundingClientRect(),l=log.getBoundingClientRect();"
    "document.body.dataset.layout=p.right<=l.left+1&&"
    "pic.scrollWidth<=pic.clientWidth?'ok':'overlap';}\n"
    "function go(n){at=Math.max(0,Math.min(STEPS.length-1,n));render();}\n"
    "document.getElementById('first').onclick=()=>go(0);\n"
    "document.getElementById('back').onclick=()=>go(at-1);\n"
    "document.getElementById('fwd').onclick=()=>go(at+1);\n"
    "document.getElementById('last').onclick=()=>go(STEPS.length-1);\n"
    "document.addEventListener('keydown',e=>{if(e.key=='ArrowRight')go(at+1);"
    "if(e.key=='ArrowLeft')go(at-1);});\n"
    "render();\n"
    "const m=/steps=(\\d+)/.exec(location.hash);\n"
    "if(m){const fwd=document.getElementById('fwd');"
    "for(let i=0;i<+m[1];i++)fwd.click();}\n";

int html_write(const trace_rec *r, const char *path, const char *verdict)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
               "<title>weft-sim: ");
    html_text(f, r->title);
    fprintf(f,
            "</title>\n<style>%s</style></head>\n<body data-step=\"0\">\n"
            "<h2>weft-sim</h2>\n<p id=\"title\">",
            style);
    html_text(f, r->title);
    fprintf(f, "</p>\n");
    if (verdict) {
        fprintf(f, "<p id=\"verdict\">");
        html_text(f, verdict);
        fprintf(f, "</p>\n");
    }
    fprintf(f, "<p><button id=\"first\">|&lt;</button>"
               "<button id=\"back\">&lt; step back</button>"
               "<button id=\"fwd\">step forward &gt;</button>"
               "<button id=\"last\">&gt;|</button> <span id=\"pos\"></span>"
               "</p>\n<p id=\"current\"></p>\n<div id=\"main\">"
               "<pre id=\"picture\"></pre><ol id=\"log\"></ol></div>\n"
               "<script>\nconst STEPS=[\n{line:\"\",pic:");
    js_string(f, r->pic0);
    fprintf(f, "}");
    for (int i = 0; i < r->n; i++) {
        fprintf(f, ",\n{line:");
        js_string(f, r->lines[i]);
        if (r->notes[i]) {
            fprintf(f, ",note:");
            js_string(f, r->notes[i]);
        }
        fprintf(f, ",pic:");
        js_string(f, r->pics[i]);
        fprintf(f, "}");
    }
    fprintf(f, "];\n%s</script>\n</body></html>\n", script);
    return fclose(f) == 0 ? 0 : -1;
}
