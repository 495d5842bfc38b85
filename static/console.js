(function () {
  "use strict";
  // The operators' console: sign in with an operator key or token (kept in this tab's
  // sessionStorage only), then the queue of conversations handed to people, one conversation at a
  // time (take it, reply, hand it back), the panic switch, and what nobody could answer. Every
  // text the server sends is set with textContent: customers write most of it.
  var KEY = "assistantConsole.credential", REFRESH_MS = 3000;
  var PANIC_CONFIRM = "Switch panic on?\n\nEvery new message from every customer will go to people " +
    "instead of the assistant until someone switches it off.";
  function $(id) { return document.getElementById(id); }
  var loginBox = $("login"), loginForm = $("login-form"), credentialBox = $("credential"), loginError = $("login-error");
  var desk = $("desk"), signedIn = $("signed-in"), meBox = $("me"), panicBtn = $("panic"), banner = $("panic-banner");
  var notice = $("notice"), queueList = $("queue"), queueEmpty = $("queue-empty"), queueCount = $("queue-count");
  var convNone = $("conv-none"), convOpen = $("conv-open"), convTitle = $("conv-title"), convMeta = $("conv-meta");
  var convStatus = $("conv-status"), convError = $("conv-error"), takeBtn = $("take"), transcript = $("transcript");
  var replyForm = $("reply-form"), replyText = $("reply-text"), replySend = $("reply-send");
  var releaseForm = $("release-form"), releaseNote = $("release-note"), releaseBtn = $("release");
  var stateBox = $("state"), auditBody = document.querySelector("#audit tbody"), auditEmpty = $("audit-empty");
  var unansweredBody = document.querySelector("#unanswered tbody"), unansweredEmpty = $("unanswered-empty");
  var panicLog = $("panic-log"), exportLink = $("export-csv");

  var credential = null, me = null, timer = null;
  var session = 0; // bumped at each sign-in and sign-out: an answer to an older one draws nothing
  var openId = null, shown = { transcript: "", state: "", audit: "" }, holding = false, panicOn = false;
  var busy = { queue: false, conversation: false };

  // ---- small helpers ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function show(node, on) { node.hidden = !on; }
  function say(node, text) { node.textContent = text || ""; show(node, Boolean(text)); }
  function remember(v) { try { if (v === null) sessionStorage.removeItem(KEY); else sessionStorage.setItem(KEY, v); } catch (e) { /* ignore */ } }
  function recalled() { try { return sessionStorage.getItem(KEY); } catch (e) { return null; } }
  // A time the server sent: unix seconds or an ISO string.
  function moment(v) {
    if (v === null || v === undefined || v === "") return null;
    var d = typeof v === "number" ? new Date(v * 1000) : new Date(v);
    return isNaN(d) ? null : d;
  }
  function clock(v) {
    var d = moment(v);
    return d ? d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" }) : "";
  }
  function stamp(v) {
    var d = moment(v);
    return d ? d.toLocaleString("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }) : String(v || "");
  }
  function waited(seconds) {
    var s = Math.max(0, Math.floor(Number(seconds) || 0));
    if (s < 60) return "under 1 min";
    var m = Math.floor(s / 60);
    return m < 60 ? m + " min" : Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  // ---- the server ----
  // A value with two dots is a signed token (Authorization: Bearer), anything else an API key.
  function authHeaders(value) {
    return value.split(".").length === 3 ? { Authorization: "Bearer " + value } : { "X-API-Key": value };
  }
  // The answer's JSON, or a rejection {status, message}; a 401 signs the console out.
  function api(method, path, body, value) {
    var asked = session, headers = authHeaders(value || credential || "");
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" })
      .catch(function () { throw { status: 0, message: "Could not reach the server. Please try again." }; })
      .then(function (res) {
        return res.json().catch(function () { return null; }).then(function (data) {
          if (!value && asked !== session) throw { stale: true };
          if (res.ok && data) return data;
          var message = data && typeof data.message === "string" && data.message ? data.message
            : "The server returned an error (" + res.status + ").";
          if (res.status === 401 && !value) signOut("Your sign-in is no longer accepted. Please sign in again.");
          throw { status: res.status, message: message, data: data };
        });
      });
  }
  function failed(where) {
    return function (err) {
      if (!err || err.stale || err.status === 401) return;
      (where === notice ? note : function (t) { say(where, t); })(err.message || "Something went wrong.");
    };
  }
  // A passing word at the top of the desk (what just happened, or what failed), gone after a while.
  var noteTimer = null;
  function note(text) {
    say(notice, text);
    if (noteTimer) clearTimeout(noteTimer);
    noteTimer = text ? setTimeout(function () { say(notice, ""); }, 8000) : null;
  }

  // ---- signing in and out ----
  function signIn(value, quiet) {
    loginForm.querySelector("button").disabled = true;
    return api("GET", "/console/api/whoami", undefined, value)
      .then(function (data) {
        credential = value; me = data.operator || ""; session++;
        remember(value);
        credentialBox.value = ""; say(loginError, "");
        meBox.textContent = "Signed in as " + me;
        show(loginBox, false); show(desk, true); show(signedIn, true);
        refresh(); timer = setInterval(refresh, REFRESH_MS);
      })
      .catch(function (err) {
        remember(null);
        if (!quiet) say(loginError, err.status === 401 ? "That key or token was not accepted." : err.message);
        credentialBox.focus();
      })
      .then(function () { loginForm.querySelector("button").disabled = false; });
  }
  function signOut(why) {
    session++; credential = null; me = null; remember(null);
    if (timer) clearInterval(timer);
    timer = null;
    openId = null; holding = false; shown = { transcript: "", state: "", audit: "" };
    [queueList, transcript, auditBody, unansweredBody, panicLog].forEach(clear);
    stateBox.textContent = ""; meBox.textContent = ""; queueCount.textContent = "";
    [convError, notice, banner].forEach(function (n) { say(n, ""); });
    show(convOpen, false); show(convNone, true); selectTab("queue");
    show(desk, false); show(signedIn, false); show(loginBox, true);
    say(loginError, why || "");
    credentialBox.focus();
  }
  loginForm.addEventListener("submit", function (e) {
    e.preventDefault();
    var value = credentialBox.value.trim();
    if (value) signIn(value);
  });
  $("logout").addEventListener("click", function () { signOut(""); });

  function refresh() {
    loadQueue();
    if (openId) loadConversation();
  }

  // ---- the panic switch ----
  function drawPanic(p) {
    panicOn = Boolean(p && p.on);
    panicBtn.setAttribute("aria-checked", panicOn ? "true" : "false");
    panicBtn.classList.toggle("on", panicOn);
    $("panic-state").textContent = panicOn ? "ON" : "off";
    document.body.classList.toggle("panicking", panicOn);
    say(banner, panicOn ? "Panic is ON: every new message goes to people" +
      (p.by ? " (switched on by " + p.by + (p.at ? " at " + stamp(p.at) : "") + ")" : "") + "." : "");
    if (p && Array.isArray(p.log)) {
      clear(panicLog);
      p.log.slice().reverse().forEach(function (entry) {
        panicLog.appendChild(el("li", null, stamp(entry.at) + " · " + (entry.on ? "on" : "off") + " · " + (entry.by || "")));
      });
    }
  }
  panicBtn.addEventListener("click", function () {
    var on = !panicOn;
    if (on && !window.confirm(PANIC_CONFIRM)) return;
    panicBtn.disabled = true;
    api("POST", "/console/api/panic", { on: on })
      .then(function (p) { drawPanic(p); note(on ? "Panic switched on." : "Panic switched off."); })
      .catch(failed(notice))
      .then(function () { panicBtn.disabled = false; });
  });
  function loadPanic() { api("GET", "/console/api/panic").then(drawPanic).catch(failed(notice)); }

  // ---- the queue ----
  function loadQueue() {
    if (busy.queue) return;
    busy.queue = true;
    api("GET", "/console/api/queue")
      .then(function (data) {
        drawQueue(Array.isArray(data.conversations) ? data.conversations : []);
        if (data.panic) drawPanic(data.panic);
      })
      .catch(failed(notice))
      .then(function () { busy.queue = false; });
  }
  function who(c) {
    if (c.status === "taken") return c.operator === me ? "You have it" : "Taken by " + (c.operator || "someone");
    return "Waiting";
  }
  // Rows are kept and updated in place (keyed by session): a refresh never pulls one from under a click.
  function drawQueue(list) {
    var rows = {}, keep = {};
    Array.prototype.forEach.call(queueList.children, function (li) { rows[li.dataset.session] = li; });
    list.forEach(function (c, i) {
      var li = rows[c.session_id];
      if (!li) {
        li = el("li"); li.dataset.session = c.session_id;
        var b = el("button", "qrow"); b.type = "button";
        ["summary", "why", "facts", "who"].forEach(function (k) { b.appendChild(el("span", k)); });
        b.addEventListener("click", function () { openConversation(li.dataset.session); });
        li.appendChild(b);
      }
      keep[c.session_id] = true;
      var b2 = li.firstChild;
      b2.querySelector(".summary").textContent = c.summary || "(no summary)";
      b2.querySelector(".why").textContent = c.reason_text || c.reason || "";
      b2.querySelector(".facts").textContent = waited(c.waiting_s) + " · " + (c.pack || "");
      b2.querySelector(".who").textContent = who(c);
      b2.className = "qrow " + (c.status === "taken" ? "taken" : "waiting") + (c.session_id === openId ? " open" : "");
      b2.setAttribute("aria-current", c.session_id === openId ? "true" : "false");
      if (queueList.children[i] !== li) queueList.insertBefore(li, queueList.children[i] || null);
    });
    Object.keys(rows).forEach(function (id) { if (!keep[id]) rows[id].remove(); });
    queueCount.textContent = list.length ? "(" + list.length + ")" : "";
    show(queueEmpty, !list.length);
  }

  // ---- one conversation ----
  function openConversation(id) {
    openId = id; holding = false; shown = { transcript: "", state: "", audit: "" };
    clear(transcript); clear(auditBody); stateBox.textContent = ""; say(convError, "");
    convTitle.textContent = "Conversation " + id.slice(0, 8); convMeta.textContent = ""; convStatus.textContent = "";
    show(convNone, false); show(convOpen, true);
    Array.prototype.forEach.call(queueList.querySelectorAll(".qrow"), function (b) {
      var on = b.parentNode.dataset.session === id;
      b.classList.toggle("open", on); b.setAttribute("aria-current", on ? "true" : "false");
    });
    drawHolding(null);
    loadConversation();
  }
  function loadConversation() {
    var id = openId;
    if (busy.conversation) return;
    busy.conversation = true;
    api("GET", "/console/api/conversations/" + encodeURIComponent(id))
      .then(function (data) { if (openId === id) drawConversation(data); })
      .catch(function (err) {
        if (openId !== id || !err || err.stale || err.status === 401) return;
        say(convError, err.status === 404 ? "This conversation no longer exists." : err.message);
      })
      .then(function () { busy.conversation = false; });
  }
  function drawHolding(h) {
    holding = Boolean(h && h.status === "taken" && h.operator === me);
    takeBtn.disabled = holding;
    takeBtn.textContent = holding ? "You have it" : "Take over";
    replyText.disabled = replySend.disabled = !holding;
    releaseNote.disabled = releaseBtn.disabled = !holding;
    replyText.placeholder = holding ? "Write to the customer…" : "Take over the conversation to reply";
  }
  function drawConversation(data) {
    var h = data.handover;
    convMeta.textContent = [data.pack, data.session_id].filter(Boolean).join(" · ");
    convStatus.className = "status " + (h ? h.status : "assistant");
    convStatus.textContent = !h ? "With the assistant"
      : h.status === "taken" ? (h.operator === me ? "You have this conversation" : (h.operator || "Someone") + " has this conversation") +
        (h.reason_text ? " · " + h.reason_text : "")
      : "Waiting for a person" + (h.since ? " since " + stamp(h.since) : "") + (h.reason_text ? " · " + h.reason_text : "");
    drawHolding(h);
    var turns = Array.isArray(data.transcript) ? data.transcript : [];
    var said = JSON.stringify(turns);
    if (said !== shown.transcript) {
      shown.transcript = said;
      // Kept where the operator scrolled to, unless they were reading the newest turns.
      var atEnd = !transcript.firstChild || transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
      clear(transcript);
      turns.forEach(function (t) { transcript.appendChild(turn(t)); });
      if (atEnd) transcript.scrollTop = transcript.scrollHeight;
    }
    var state = JSON.stringify(data.state === undefined ? null : data.state, null, 2);
    if (state !== shown.state) { shown.state = state; stateBox.textContent = state; }
    var audit = Array.isArray(data.audit) ? data.audit : [], logged = JSON.stringify(audit);
    if (logged !== shown.audit) {
      shown.audit = logged;
      clear(auditBody);
      audit.forEach(function (a) {
        var tr = el("tr");
        [stamp(a.at), a.goal_type, a.from_status, a.to_status, a.why].forEach(function (v) {
          tr.appendChild(el("td", null, v === null || v === undefined ? "—" : v));
        });
        auditBody.appendChild(tr);
      });
      show(auditEmpty, !audit.length);
    }
  }
  function turn(t) {
    var role = t.role === "user" || t.role === "operator" ? t.role : "assistant";
    var box = el("div", "turn " + role), head = el("div", "head");
    head.appendChild(el("span", "name", role === "user" ? "Customer" : role === "operator" ? (t.by || "Staff") + " (staff)" : "Assistant"));
    head.appendChild(el("span", "time", clock(t.at)));
    box.appendChild(head);
    box.appendChild(el("div", "text", t.text || ""));
    return box;
  }

  takeBtn.addEventListener("click", function () {
    var id = openId;
    takeBtn.disabled = true; say(convError, "");
    api("POST", "/console/api/conversations/" + encodeURIComponent(id) + "/take", {})
      .then(function () { if (openId === id) { note("You took over this conversation."); replyText.focus(); } })
      .catch(function (err) {
        if (err && !err.stale && err.status !== 401 && openId === id) say(convError, err.message);
      })
      .then(function () { if (openId === id) { loadConversation(); loadQueue(); } });
  });
  function sendReply() {
    var id = openId, text = replyText.value.trim();
    if (!text || !holding) return;
    replySend.disabled = true; say(convError, "");
    api("POST", "/console/api/conversations/" + encodeURIComponent(id) + "/reply", { text: text })
      .then(function (data) {
        if (openId !== id) return;
        replyText.value = "";
        if (data && data.message) { transcript.appendChild(turn(data.message)); transcript.scrollTop = transcript.scrollHeight; }
      })
      .catch(function (err) {
        if (err && !err.stale && err.status !== 401 && openId === id) say(convError, err.message);
      })
      .then(function () { if (openId === id) { replySend.disabled = !holding; loadConversation(); } });
  }
  replyForm.addEventListener("submit", function (e) { e.preventDefault(); sendReply(); });
  replyText.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); sendReply(); }
  });
  releaseForm.addEventListener("submit", function (e) {
    e.preventDefault();
    var id = openId;
    if (!holding) return;
    releaseBtn.disabled = true; say(convError, "");
    api("POST", "/console/api/conversations/" + encodeURIComponent(id) + "/release", { note: releaseNote.value.trim() })
      .then(function () { if (openId === id) { releaseNote.value = ""; note("Handed back to the assistant."); } })
      .catch(function (err) {
        if (err && !err.stale && err.status !== 401 && openId === id) say(convError, err.message);
      })
      .then(function () { if (openId === id) { loadConversation(); loadQueue(); } });
  });

  // ---- what nobody could answer ----
  function loadUnanswered() {
    api("GET", "/console/api/unanswered")
      .then(function (data) {
        var groups = Array.isArray(data.groups) ? data.groups : [];
        clear(unansweredBody);
        groups.forEach(function (g) {
          var tr = el("tr"), reasons = g.reasons || {};
          var why = Object.keys(reasons).map(function (r) { return r.replace(/_/g, " ") + " (" + reasons[r] + ")"; }).join(", ");
          [g.count, g.example, why, stamp(g.last_at)].forEach(function (v) { tr.appendChild(el("td", null, v)); });
          unansweredBody.appendChild(tr);
        });
        show(unansweredEmpty, !groups.length);
      })
      .catch(failed(notice));
  }
  // The CSV needs the credential too: fetched, then saved from a Blob.
  exportLink.addEventListener("click", function (e) {
    e.preventDefault();
    var asked = session;
    fetch("/console/api/unanswered.csv", { headers: authHeaders(credential || ""), cache: "no-store" })
      .catch(function () { throw { message: "Could not reach the server. Please try again." }; })
      .then(function (res) {
        if (asked !== session) throw { stale: true };
        if (res.status === 401) { signOut("Your sign-in is no longer accepted. Please sign in again."); throw { status: 401 }; }
        if (!res.ok) throw { message: "The export failed (" + res.status + ")." };
        return res.blob();
      })
      .then(function (blob) {
        var url = URL.createObjectURL(blob), a = el("a");
        a.href = url; a.download = "unanswered.csv"; a.hidden = true;
        document.body.appendChild(a); a.click(); a.remove();
        setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
      })
      .catch(failed(notice));
  });

  // ---- tabs ----
  function selectTab(name) {
    ["queue", "unanswered"].forEach(function (t) {
      $("tab-" + t).setAttribute("aria-selected", t === name ? "true" : "false");
      show($("view-" + t), t === name);
    });
  }
  $("tab-queue").addEventListener("click", function () { selectTab("queue"); });
  $("tab-unanswered").addEventListener("click", function () { selectTab("unanswered"); loadUnanswered(); loadPanic(); });

  // A tab that signed in before (this tab only: sessionStorage) stays signed in across a reload.
  var kept = recalled();
  if (kept) signIn(kept, true); else credentialBox.focus();
})();
