(function () {
  "use strict";
  var SID_KEY = "cardAssistant.sessionId", PROF_KEY = "cardAssistant.employment";
  var log = document.getElementById("log"), form = document.getElementById("composer");
  var input = document.getElementById("input"), sendBtn = document.getElementById("send");
  var profile = document.getElementById("profile"), typing = document.getElementById("typing");
  var busy = false, lastState = null; // lastState: the latest answer's session state (is a code awaited?)
  var attachBtn = document.getElementById("attach"), fileInput = document.getElementById("file");
  var tray = document.getElementById("tray"), uploading = 0; // files still on their way to POST /attachments
  var PAPERCLIP = "\uD83D\uDCCE"; // the words of a message that is only files
  var MAX_CHARS = 1000;
  // A conversation handed to people: the page asks for what they wrote every POLL_MS while the
  // server says people have it; lastAt is the newest turn's time this page has seen (a turn is drawn once).
  var POLL_MS = 2000, handledBy = "assistant", lastAt = 0, pollTimer = null, polling = false;
  var answered = 0; // answers drawn: a poll that started before the latest one doesn't overrule what it said
  // The page's own words: the pack's `page.labels` (GET /about) once they arrive; these English
  // ones (the same defaults as assistant/pack/model.py Labels) until then, or if they never do.
  var labels = {
    new_conversation: "New conversation", send: "Send", message: "Your message", conversation: "Conversation",
    attach: "Attach a photo or PDF", remove_file: "Remove {name}", files_for_next: "Files for your next message",
    profile: "I am a\u2026", profile_unset: "not set", suggested_replies: "Suggested replies",
    agents: "Agents that answered", comparison: "Product comparison", best: "Best", eligible: "Eligible",
    not_eligible: "Not eligible", need_more_info: "Need more info", booking_confirmed: "{subject} confirmed \u00b7 {id}",
    booking_in_progress: "{subject} in progress", call_back: "Call-back to {phone}", how: "How", day: "Day",
    time: "Time", name: "Name", phone: "Phone", confirm: "Confirm", code_placeholder: "6-digit code",
    one_time_code: "One-time code", error: "Sorry, something went wrong: {message}", unknown_error: "unknown error",
    unreachable: "could not reach the server. Please try again.", server_error: "the server returned an error ({status}).",
    cut_off: "the answer was cut off. Please try again.", too_long: "Your message is too long (max {max} characters).",
    operator_label: "{name} (staff)", sent: "Sent"
  };
  // A label with its {names} filled in.
  function fill(key, values) {
    return String(labels[key]).replace(/\{(\w+)\}/g, function (all, name) {
      return values && values[name] !== undefined && values[name] !== null ? String(values[name]) : all;
    });
  }

  function uuid() {
    if (window.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
    var b = new Uint8Array(16);
    if (window.crypto && crypto.getRandomValues) crypto.getRandomValues(b);
    else for (var i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }
  function store(k, v) { try { if (v === null) localStorage.removeItem(k); else localStorage.setItem(k, v); } catch (e) { /* ignore */ } }
  function load(k) { try { return localStorage.getItem(k); } catch (e) { return null; } }
  var sessionId = load(SID_KEY);
  if (!sessionId) { sessionId = uuid(); store(SID_KEY, sessionId); }
  var savedProf = load(PROF_KEY);

  // ---- tiny safe markdown: escape everything first, then add a few tags ----
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  // s is already escaped. Emphasis opens and closes next to a letter, not inside a word: "2*3" and
  // "12 * 3 = **36**" stay arithmetic, snake_case stays a name.
  function inline(s) {
    return s.replace(/\*\*([^*]+?)\*\*/g, "<strong>$1</strong>").replace(/__([^_]+?)__/g, "<strong>$1</strong>")
      .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, "$1<em>$2</em>")
      .replace(/(^|[^\w_])_(?=\S)([^_]*?\S)_(?![\w_])/g, "$1<em>$2</em>");
  }
  function cells(line) {
    var t = line.trim().replace(/^\|/, "").replace(/\|$/, "");
    return t.split("|").map(function (c) { return inline(c.trim()); });
  }
  function renderMarkdown(md) {
    var lines = esc(md || "").replace(/\r\n?/g, "\n").split("\n"), out = [], para = [], i = 0;
    function flush() { if (para.length) { out.push("<p>" + para.join("<br>") + "</p>"); para = []; } }
    while (i < lines.length) {
      var line = lines[i], m;
      if (/^\s*\|.*\|\s*$/.test(line)) {
        flush();
        var rows = [];
        while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i])) rows.push(lines[i++]);
        var html = '<div class="tbl-wrap"><table>', start = 0;
        if (rows.length > 1 && /^\s*\|?[\s:|-]+\|?\s*$/.test(rows[1]) && rows[1].indexOf("-") >= 0) {
          html += "<thead><tr>" + cells(rows[0]).map(function (c) { return "<th>" + c + "</th>"; }).join("") + "</tr></thead>";
          start = 2;
        }
        html += "<tbody>";
        for (var r = start; r < rows.length; r++)
          html += "<tr>" + cells(rows[r]).map(function (c) { return "<td>" + c + "</td>"; }).join("") + "</tr>";
        out.push(html + "</tbody></table></div>");
        continue;
      }
      if (/^\s*[-*•]\s+/.test(line) || /^\s*\d+[.)]\s+/.test(line)) {
        flush();
        var ordered = /^\s*\d+[.)]\s+/.test(line), re = ordered ? /^\s*\d+[.)]\s+/ : /^\s*[-*•]\s+/, items = [];
        while (i < lines.length && re.test(lines[i])) items.push("<li>" + inline(lines[i++].replace(re, "")) + "</li>");
        out.push((ordered ? "<ol>" : "<ul>") + items.join("") + (ordered ? "</ol>" : "</ul>"));
        continue;
      }
      if (!line.trim()) flush(); else para.push(inline(line.replace(/^#{1,6}\s+/, "")));
      i++;
    }
    flush();
    return out.join("");
  }

  // ---- DOM helpers ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function scrollDown() { log.scrollTop = log.scrollHeight; }
  function fmtFee(v) {
    var n = Number(v);
    return isFinite(n) ? "৳" + Math.round(n).toLocaleString("en-US") : "—";
  }

  function title(s) { return s ? String(s).charAt(0).toUpperCase() + String(s).slice(1) : ""; }
  // Which agents answered: a developer's detail, kept quiet under the reply and named in the pack's words.
  function trace(text) { var box = el("div", "agents", text); box.title = labels.agents; return box; }
  // Dates in the page's language; a plain English page keeps the day-first British dates.
  function locale() { return about.lang && about.lang !== "en" ? about.lang : "en-GB"; }

  // Each product carries `display` (badge, meta, headline, highlights) built by the server
  // from the domain pack, so the page shows cards, cars or gadgets alike.
  function productCards(products) {
    var wrap = el("div", "cards");
    products.forEach(function (p) {
      var shown = p.display || {}, c = el("article", "pcard"), h = el("h3", null, p.name || p.id);
      if (shown.badge) h.appendChild(el("span", "badge", title(shown.badge)));
      c.appendChild(h);
      if (shown.meta) c.appendChild(el("div", "meta", shown.meta));
      if (shown.headline) c.appendChild(el("div", "fee", shown.headline));
      var ben = Array.isArray(shown.highlights) ? shown.highlights : [];
      if (ben.length) {
        var ul = el("ul");
        ben.forEach(function (b) { ul.appendChild(el("li", null, String(b))); });
        c.appendChild(ul);
      }
      wrap.appendChild(c);
    });
    return wrap;
  }

  function comparisonTable(cmp, products) {
    var names = {};
    (products || []).forEach(function (p) { names[p.id] = p.name || p.id; });
    var ids = Array.isArray(cmp.products) && cmp.products.length ? cmp.products
      : Object.keys(((cmp.rows || [])[0] || {}).values || {});
    var wrap = el("div", "tbl-wrap"), t = el("table"), thead = el("thead"), hr = el("tr");
    t.setAttribute("aria-label", labels.comparison);
    hr.appendChild(el("th", null, ""));
    ids.forEach(function (id) { var th = el("th", null, names[id] || id); th.scope = "col"; hr.appendChild(th); });
    thead.appendChild(hr); t.appendChild(thead);
    var tb = el("tbody");
    (cmp.rows || []).forEach(function (row) {
      var tr = el("tr"), th = el("th", null, row.label); th.scope = "row"; tr.appendChild(th);
      var best = Array.isArray(row.best) ? row.best : [];
      ids.forEach(function (id) {
        var v = row.values ? row.values[id] : undefined;
        var td = el("td", best.indexOf(id) >= 0 ? "best" : null, v === undefined || v === null ? "—" : v);
        if (best.indexOf(id) >= 0) td.title = labels.best;
        tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
    t.appendChild(tb); wrap.appendChild(t);
    return wrap;
  }

  function eligibilityList(items) {
    var wrap = el("div", "elig");
    items.forEach(function (it) {
      var box = el("div", "elig-item"), head = el("div");
      head.appendChild(el("strong", null, it.product_name || it.product_id));
      var v = it.eligible === true ? ["yes", labels.eligible] : it.eligible === false ? ["no", labels.not_eligible]
        : ["maybe", labels.need_more_info];
      head.appendChild(el("span", "chip " + v[0], v[1]));
      box.appendChild(head);
      if (Array.isArray(it.reasons) && it.reasons.length) {
        var ul = el("ul");
        it.reasons.forEach(function (r) { ul.appendChild(el("li", null, r)); });
        box.appendChild(ul);
      }
      wrap.appendChild(box);
    });
    return wrap;
  }

  // The files the next message brings: each is uploaded at once (POST /attachments) and shown as
  // a chip (a thumbnail for a photo); the message then sends the ids of those kept.
  function fileChip(file) {
    var chip = el("div", "att uploading"), remove = el("button", "x", "×");
    if (/^image\//.test(file.type)) {
      var img = el("img", "thumb"); img.alt = ""; img.src = URL.createObjectURL(file); chip.appendChild(img);
    } else chip.appendChild(el("span", "doc", "PDF"));
    chip.appendChild(el("span", "name", file.name));
    remove.type = "button"; remove.setAttribute("aria-label", fill("remove_file", { name: file.name }));
    remove.addEventListener("click", function () { chip.remove(); trayChanged(); });
    chip.appendChild(remove);
    return chip;
  }
  // A file a restored message sent, as its chip was drawn (the photo itself stays with the office).
  function sentChip(file) {
    var chip = el("div", "att sent");
    chip.appendChild(el("span", "doc", file.kind === "pdf" ? "PDF" : "IMG"));
    chip.appendChild(el("span", "name", file.name || ""));
    return chip;
  }
  function trayChanged() {
    tray.hidden = !tray.children.length;
    input.required = !readyIds().length;
    sendBtn.disabled = busy || uploading > 0;
  }
  function readyIds() {
    return Array.prototype.map.call(tray.querySelectorAll(".att.ready"), function (c) { return c.dataset.id; });
  }
  function upload(file) {
    var chip = fileChip(file), asked = sessionId, form = new FormData();
    tray.appendChild(chip); uploading++; trayChanged();
    form.append("session_id", sessionId); form.append("file", file, file.name);
    fetch("/attachments", { method: "POST", body: form }).then(jsonOrThrow)
      .then(function (data) { chip.dataset.id = data.id; chip.className = "att ready"; })
      .catch(function (err) {
        chip.className = "att failed";
        chip.title = err && err.friendly ? err.friendly : labels.unreachable;
        chip.insertBefore(el("span", "why", chip.title), chip.lastChild);
      })
      .then(function () { uploading--; trayChanged(); });
  }
  attachBtn.addEventListener("click", function () { fileInput.click(); });
  fileInput.addEventListener("change", function () {
    Array.prototype.forEach.call(fileInput.files, upload);
    fileInput.value = ""; // the same file chosen again is a change too
  });
  function clearTray() { while (tray.firstChild) tray.removeChild(tray.firstChild); trayChanged(); }

  function addUser(text, thumbs) {
    var m = el("div", "msg user", text === PAPERCLIP ? "" : text);
    if (text === PAPERCLIP && !(thumbs && thumbs.length)) m.appendChild(attachBtn.querySelector("svg").cloneNode(true));
    (thumbs || []).forEach(function (chip) {
      var shown = chip.cloneNode(true), x = shown.querySelector(".x");
      if (x) x.remove();
      shown.className = "att sent"; m.appendChild(shown);
    });
    log.appendChild(m); scrollDown();
  }

  // While a booking waits for its one-time code, what may be the code is not left on screen
  // (the server keeps six-digit runs masked in the history too).
  function codeAwaited() {
    var goal = lastState && lastState.active_goal;
    return Boolean(goal && goal.slots && goal.slots.code_sent);
  }
  function masked(text) {
    return /^\d{4,8}$/.test(text) ? "••••••" : text.replace(/(?<!\d)\d{6}(?!\d)/g, "••••••");
  }

  // In the business's time zone: a 10:00 booking reads 10:00 wherever the customer's browser is.
  function when(iso) {
    var d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString(locale(), { weekday: "long", day: "numeric", month: "long",
      hour: "2-digit", minute: "2-digit", timeZone: about.timezone });
  }

  // A booking as a status card: confirmed, or in progress with a field for the one-time code.
  function bookingCard(data) {
    var goal = data.state && data.state.active_goal, b = data.booking, card = el("section", "booking");
    var subject = title(about.booking || "appointment");
    card.setAttribute("aria-label", subject);
    if (b) {
      card.classList.add("confirmed");
      card.appendChild(el("h3", null, fill("booking_confirmed", { subject: subject, id: b.id })));
      // Only the details this booking has: a call-back or a test drive at home has no branch.
      var how = b.channel === "call" && b.phone ? fill("call_back", { phone: b.phone })
        : [title(b.channel), b.branch].filter(Boolean).join(": ");
      [b.product_name, b.starts_at && when(b.starts_at), how].filter(Boolean)
        .forEach(function (line) { card.appendChild(el("div", null, line)); });
      return card;
    }
    if (!goal || goal.type !== "booking") return null;
    var s = goal.slots || {};
    // The item once the customer chose it (the flow's slot holds its id), not whatever the answer showed.
    var chosen = s.product && (data.products || []).filter(function (p) { return p.id === s.product; })[0];
    card.appendChild(el("h3", null, fill("booking_in_progress", { subject: subject })));
    var dl = el("dl");
    [[title(about.item || "item"), chosen ? chosen.name : s.product], [labels.how,
      s.branch ? title(s.channel) + ": " + s.branch : title(s.channel)], [labels.day, s.date &&
      new Date(s.date + "T12:00:00").toLocaleDateString(locale(), { weekday: "long", day: "numeric", month: "long" })],
     [labels.time, s.time], [labels.name, s.name], [labels.phone, s.phone]].forEach(function (row) {
      if (!row[1]) return;
      dl.appendChild(el("dt", null, row[0])); dl.appendChild(el("dd", null, row[1]));
    });
    card.appendChild(dl);
    if (s.code_sent) {
      var f = el("form", "code-form"), inp = el("input"), btn = el("button", null, labels.confirm);
      inp.type = "text"; inp.inputMode = "numeric"; inp.autocomplete = "one-time-code"; inp.maxLength = 6;
      inp.pattern = "[0-9]{6}"; inp.required = true; inp.placeholder = labels.code_placeholder;
      inp.setAttribute("aria-label", labels.one_time_code); btn.type = "submit";
      f.appendChild(inp); f.appendChild(btn);
      f.addEventListener("submit", function (e) {
        e.preventDefault();
        var code = inp.value;
        inp.value = ""; inp.disabled = btn.disabled = true;  // a code is used once and not left on screen
        send(code, true);
      });
      card.appendChild(f);
    }
    return card;
  }

  // The example drawings a quote sends (the pack's own files under /pack-files/), each with its label.
  function exampleImages(images) {
    var box = el("div", "examples");
    images.forEach(function (i) {
      if (typeof i.url !== "string" || i.url.indexOf("/pack-files/") !== 0) return;
      var fig = el("figure"), img = el("img");
      img.src = i.url; img.alt = i.label || ""; img.loading = "lazy";
      fig.appendChild(img);
      fig.appendChild(el("figcaption", null, i.label || ""));
      box.appendChild(fig);
    });
    return box;
  }

  function swapIn(body, old, fresh) {
    if (old) body.replaceChild(fresh, old); else body.appendChild(fresh);
  }

  function addBot(data, replacing) {
    var m = el("div", "msg bot"), body = el("div", "md");
    body.innerHTML = renderMarkdown(data.reply || data.ask_user || ""); // escaped by renderMarkdown
    m.appendChild(body);
    var products = Array.isArray(data.products) ? data.products : [];
    var intentType = data.intent && data.intent.type;
    // The reply's markdown says everything for JSON clients; here the structured part replaces
    // its text twin (the numbered list, the table, the verdict paragraphs) where it stood.
    if (products.length && intentType === "product_info") swapIn(body, body.querySelector("ol"), productCards(products));
    if (data.comparison && Array.isArray(data.comparison.rows) && data.comparison.rows.length)
      swapIn(body, body.querySelector(".tbl-wrap"), comparisonTable(data.comparison, products));
    if (Array.isArray(data.eligibility) && data.eligibility.length) {
      var first = null;
      data.eligibility.forEach(function (v) {
        Array.prototype.forEach.call(body.querySelectorAll("p"), function (p) {
          if (p.textContent.indexOf((v.product_name || v.product_id) + ":") !== 0) return;
          var list = p.nextElementSibling;
          if (list && list.tagName === "UL") list.remove();
          if (first) p.remove(); else first = p;
        });
      });
      swapIn(body, first, eligibilityList(data.eligibility));
    }
    if (Array.isArray(data.images) && data.images.length) m.appendChild(exampleImages(data.images));
    var booking = bookingCard(data);
    if (booking) m.appendChild(booking);
    if (Array.isArray(data.agents) && data.agents.length) m.appendChild(trace(data.agents.join(" → ")));
    if (replacing) log.replaceChild(m, replacing); else log.appendChild(m);
    if (Array.isArray(data.choices) && data.choices.length) {
      var ch = el("div", "choices");
      ch.setAttribute("role", "group"); ch.setAttribute("aria-label", labels.suggested_replies);
      data.choices.forEach(function (c) {
        var b = el("button", null, c); b.type = "button";
        b.addEventListener("click", function () { send(String(c)); });
        ch.appendChild(b);
      });
      log.appendChild(ch);
    }
    scrollDown();
  }

  function addError(msg) {
    var text = String(msg || labels.unknown_error).slice(0, 300);
    log.appendChild(el("div", "msg bot error", fill("error", { message: text })));
    scrollDown();
  }

  // What a person on the business's side wrote: a bot bubble of its own kind, named.
  function addOperator(turn) {
    var m = el("div", "msg bot operator"), body = el("div", "md");
    m.appendChild(el("div", "who", fill("operator_label", { name: turn.by || "" })));
    body.innerHTML = renderMarkdown(turn.text || ""); // escaped by renderMarkdown
    m.appendChild(body);
    log.appendChild(m); scrollDown();
  }
  // A message people will read (no answer of the assistant's to draw): a quiet line under it.
  function addSent() {
    Array.prototype.forEach.call(log.querySelectorAll(".sent-note"), function (x) { x.remove(); });
    log.appendChild(el("div", "sent-note", labels.sent)); scrollDown();
  }
  function seen(at) { var n = Number(at); if (isFinite(n) && n > lastAt) lastAt = n; }

  // While people have the conversation: GET /sessions/<id>/messages every POLL_MS, one request at a
  // time, their turns drawn as they come; the assistant back (or a new conversation) ends it.
  function handled(by) {
    handledBy = by === "human" ? "human" : "assistant";
    if (handledBy === "human") schedulePoll(); else stopPolling();
  }
  function stopPolling() { if (pollTimer) clearTimeout(pollTimer); pollTimer = null; }
  function schedulePoll() { if (!pollTimer && !polling) pollTimer = setTimeout(poll, POLL_MS); }
  function poll() {
    pollTimer = null;
    if (handledBy !== "human") return;
    var asked = sessionId, since = answered;
    polling = true;
    fetch("/sessions/" + encodeURIComponent(asked) + "/messages?after=" + encodeURIComponent(String(lastAt)))
      .then(function (res) { if (!res.ok) throw { status: res.status }; return res.json(); })
      .then(function (data) {
        if (sessionId !== asked) return;
        (Array.isArray(data.messages) ? data.messages : []).forEach(function (turn) {
          var at = Number(turn.at);
          if (isFinite(at) && at <= lastAt) return; // drawn already
          if (turn.role === "operator") addOperator(turn);
          seen(at);
        });
        if (since === answered) handledBy = data.handled_by === "human" ? "human" : "assistant";
      })
      .catch(function (err) {
        // A conversation the server doesn't know (or a server without people): nothing to wait for.
        if (err && (err.status === 404 || err.status === 405) && since === answered) handledBy = "assistant";
      })
      .then(function () {
        polling = false;
        if (sessionId === asked && handledBy === "human") schedulePoll();
      });
  }

  function setBusy(b) {
    busy = b; input.disabled = b; sendBtn.disabled = b || uploading > 0; attachBtn.disabled = b; typing.hidden = !b;
    log.setAttribute("aria-busy", b ? "true" : "false");
    Array.prototype.forEach.call(log.querySelectorAll(".choices button"), function (x) { x.disabled = b; });
    if (!b) input.focus();
  }

  function jsonOrThrow(res) {
    return res.json().catch(function () { return null; }).then(function (data) {
      if (!res.ok || !data) {
        var msg = data && typeof data.message === "string" && data.message ? data.message
          : fill("server_error", { status: res.status });
        throw { friendly: msg };
      }
      return data;
    });
  }

  function post(path, payload) {
    return fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
  }

  // Streams a turn: agents as they start, the reply word by word, then the full answer.
  function streamTurn(payload) {
    return post("/chat/stream", payload).then(function (res) {
      var type = res.headers.get("Content-Type") || "";
      if (res.status === 404 || res.status === 405) throw { fallback: true };
      if (!res.ok || type.indexOf("text/event-stream") < 0 || !res.body) return jsonOrThrow(res);
      var live = el("div", "msg bot streaming"), text = el("div", "md"), agents = trace(""), names = [];
      live.appendChild(text); live.appendChild(agents); log.appendChild(live);
      var reader = res.body.getReader(), decoder = new TextDecoder(), buffer = "", final = null;
      function handle(block) {
        var kind = (block.match(/^event: (.*)$/m) || [])[1], raw = (block.match(/^data: (.*)$/m) || [])[1];
        if (!kind || raw === undefined) return;
        var data = JSON.parse(raw);
        if (kind === "agent" && data.status === "started") { names.push(data.name); agents.textContent = names.join(" → "); }
        else if (kind === "chunk") { typing.hidden = true; text.textContent += data.text; }
        else if (kind === "final") final = data;
        else if (kind === "error") throw { friendly: data.message };
        scrollDown();
      }
      function pump() {
        return reader.read().then(function (step) {
          buffer += decoder.decode(step.value || new Uint8Array(), { stream: !step.done });
          var blocks = buffer.split("\n\n");
          buffer = blocks.pop();
          blocks.forEach(handle);
          if (!step.done) return pump();
          if (buffer.trim()) handle(buffer);
          if (!final) throw { friendly: labels.cut_off };
          return { data: final, live: live };
        });
      }
      return pump().catch(function (err) { live.remove(); throw err; });
    });
  }

  function send(text, isCode) {
    text = (text || "").trim();
    var files = isCode ? [] : readyIds(), chips = Array.prototype.slice.call(tray.querySelectorAll(".att.ready"));
    if (!text && files.length) text = PAPERCLIP;
    if (!text || busy || uploading > 0) return;
    if (text.length > MAX_CHARS) { addError(fill("too_long", { max: MAX_CHARS })); return; }
    Array.prototype.forEach.call(log.querySelectorAll(".choices"), function (x) { x.remove(); });
    addUser(isCode ? "••••••" : codeAwaited() ? masked(text) : text, isCode ? [] : chips);
    input.value = ""; fit();
    if (!isCode) clearTray();
    setBusy(true);
    var asked = sessionId, payload = { query: text, session_id: sessionId };
    if (files.length) payload.attachments = files;
    if (profile.value && about && about.profile_fact) { payload.facts = {}; payload.facts[about.profile_fact] = profile.value; }
    streamTurn(payload)
      .catch(function (err) {
        if (err && err.fallback) return post("/chat", payload).then(jsonOrThrow);
        throw err;
      })
      .then(function (result) {
        var data = result.data || result;
        // A new conversation started while this answer was on its way: it belongs to the old one.
        if (sessionId !== asked) { if (result.live) result.live.remove(); return; }
        if (data.session_id && data.session_id !== sessionId) { sessionId = data.session_id; store(SID_KEY, sessionId); }
        lastState = data.state || null;
        // A reply in another language switches the page to it first, so its cards and controls speak it too.
        return speak(data.language).then(function () {
          if (sessionId === asked) drawAnswer(data, result.live); else if (result.live) result.live.remove();
        });
      })
      .catch(function (err) {
        if (sessionId === asked) addError(err && err.friendly ? err.friendly : labels.unreachable);
      })
      .then(function () { setBusy(false); });
  }

  function drawAnswer(data, live) {
    // With a person: the holding words while the conversation waits for one, then nothing of
    // the assistant's (what the person writes comes by polling).
    if (data.handled_by === "human" && !data.reply && !data.ask_user) {
      if (live) live.remove();
      addSent();
    } else addBot(data, live);
    answered++;
    handled(data.handled_by);
  }

  // The box grows with its lines (Shift+Enter: a new line, as the questions that want one answer per line ask).
  function fit() { input.style.height = "auto"; if (input.value) input.style.height = input.scrollHeight + 2 + "px"; }
  input.addEventListener("input", fit);
  form.addEventListener("submit", function (e) { e.preventDefault(); send(input.value); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(input.value); }
  });
  profile.addEventListener("change", function () { store(PROF_KEY, profile.value || null); });
  document.getElementById("new-chat").addEventListener("click", function () {
    sessionId = uuid(); store(SID_KEY, sessionId); lastState = null;
    lastAt = 0; handled("assistant");
    while (log.firstChild) log.removeChild(log.firstChild);
    clearTray();
    greet(); input.focus();
  });

  // A reload continues the conversation: the server keeps it, the page asks for it again,
  // unless the customer already started a new chat (or wrote) while the page was loading.
  function restore() {
    var asked = sessionId;
    fetch("/sessions/" + encodeURIComponent(asked))
      .then(function (res) { if (!res.ok) throw res; return res.json(); })
      .then(function (data) {
        if (sessionId !== asked || log.firstChild) return;
        if (!data.history || !data.history.length) { greet(); return; }
        if (data.language) speak(data.language);  // the conversation's language, not the browser's
        var last = data.history.length - 1;
        lastState = data.state;
        data.history.forEach(function (turn, i) {
          seen(turn.at);
          if (turn.role === "user") { addUser(turn.text, (turn.files || []).map(sentChip)); return; }
          if (turn.role === "operator") { addOperator(turn); return; }
          // As it was drawn live: only the latest answer still offers quick replies and the booking in progress.
          addBot({ reply: turn.text, ask_user: turn.ask_user, intent: { type: turn.intent }, agents: turn.agents,
            products: turn.products, eligibility: turn.eligibility, booking: turn.booking, images: turn.images,
            choices: i === last ? turn.choices : [], state: i === last ? data.state : null });
        });
        // Still with people? The history says (or, from a server that doesn't, one look tells).
        if (data.handled_by) handled(data.handled_by); else { handledBy = "human"; poll(); }
      })
      .catch(function () { if (sessionId === asked && !log.firstChild) greet(); });
  }

  var about = { welcome: "Hi! How can I help?", examples: [] };
  // The welcome waits for the business's words, then lands only in the still-empty log of the
  // conversation it was meant for: a click on "New conversation" while the page loads and the
  // restore that finds no history can't both draw one.
  function greet() {
    var meant = sessionId;
    presented.then(function () {
      if (sessionId === meant && !log.firstChild) addBot({ reply: about.welcome, choices: about.examples });
    });
  }

  // The business behind this page (its pack), in the page's language: title, placeholder, welcome,
  // every label and screen-reader name, profile choices and time zone. Drawn again on a switch of
  // language, so it sets each word rather than adding to what is there.
  function present(info, code) {
    about = info; language = code || codeOf(info);
    if (info.lang) document.documentElement.lang = info.lang;
    Object.keys(info.labels || {}).forEach(function (k) { if (typeof info.labels[k] === "string") labels[k] = info.labels[k]; });
    var newChat = document.getElementById("new-chat");
    newChat.textContent = labels.new_conversation; sendBtn.textContent = labels.send;
    attachBtn.setAttribute("aria-label", labels.attach); attachBtn.title = labels.attach;
    tray.setAttribute("aria-label", labels.files_for_next); log.setAttribute("aria-label", labels.conversation);
    document.querySelector('label[for="input"]').textContent = labels.message;
    document.querySelector('label[for="profile"]').textContent = labels.profile;
    document.title = info.title;
    document.querySelector("header h1").textContent = info.title;
    input.placeholder = info.placeholder;
    var choices = info.profile_choices || [], chosen = profile.value || savedProf;
    profile.hidden = !choices.length;
    document.querySelector('label[for="profile"]').hidden = !choices.length;
    while (profile.options.length > 1) profile.remove(1);
    profile.options[0].textContent = labels.profile_unset;
    choices.forEach(function (c) { profile.appendChild(el("option", null, c.label)).value = c.value; });
    if (chosen && choices.some(function (c) { return c.value === chosen; })) profile.value = chosen;
    // What is still to be used on screen: quick replies, a code box, the files for the next message.
    Array.prototype.forEach.call(log.querySelectorAll(".choices"), function (x) { x.setAttribute("aria-label", labels.suggested_replies); });
    Array.prototype.forEach.call(log.querySelectorAll(".code-form"), function (f) {
      var box = f.querySelector("input");
      box.placeholder = labels.code_placeholder; box.setAttribute("aria-label", labels.one_time_code);
      f.querySelector("button").textContent = labels.confirm;
    });
    Array.prototype.forEach.call(tray.querySelectorAll(".att"), function (chip) {
      var x = chip.querySelector(".x"), name = chip.querySelector(".name");
      if (x && name) x.setAttribute("aria-label", fill("remove_file", { name: name.textContent }));
    });
  }

  // The page's language: the code of the pack's (about.languages) it last asked for, or "en" of
  // the pack's own tag such as "en-GB" (a language not translated yet shows the pack's own words).
  var language = null, switching = 0;
  function codeOf(info) { return String(info.lang || "en").split("-")[0].toLowerCase(); }
  function aboutIn(code) {
    return fetch("/about" + (code ? "?lang=" + encodeURIComponent(code) : ""))
      .then(function (res) { if (!res.ok) throw res; return res.json(); });
  }
  // The page in language `code`, once its words arrive (only the latest switch asked is drawn);
  // resolves either way, so a reply waits for its page's words but never on a failed fetch.
  function speak(code) {
    var known = Array.isArray(about.languages) ? about.languages : [];
    if (!code || code === language || known.indexOf(code) < 0) return Promise.resolve();
    var mine = ++switching;
    return aboutIn(code).then(function (info) { if (mine === switching) present(info, code); }).catch(function () {});
  }
  // The first of the visitor's browser languages the business speaks, if any.
  function preferred(known) {
    var tags = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
    var codes = Array.prototype.map.call(tags, function (tag) { return String(tag).split("-")[0].toLowerCase(); });
    return codes.filter(function (code) { return known.indexOf(code) >= 0; })[0] || null;
  }
  // The page starts in the visitor's language where the business speaks it, else in the business's own.
  var presented = aboutIn(null).then(function (info) {
    var wanted = preferred(Array.isArray(info.languages) ? info.languages : []);
    if (!wanted || wanted === codeOf(info)) return present(info);
    return aboutIn(wanted).then(function (asked) { present(asked, wanted); }, function () { present(info); });
  }).catch(function () {});
  presented.then(restore);
  window.__renderMarkdown = renderMarkdown; // for the browser tests and quick manual checks
})();
