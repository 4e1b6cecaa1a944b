/**
 * The participant and operator pages of a live session: one HTML shell, one stylesheet and
 * one script (served from the same origin, so the strict content security policy allows no
 * inline code). Everything said is rendered with textContent: text, never HTML. `base` is the
 * page's own token path (/p/<token>): its script and stylesheet are served only under it.
 */
export function livePage(role: "participant" | "operator", base: string): string {
  const operator = role === "operator";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${operator ? "Colloquy operator" : "Colloquy chat"}</title>
<link rel="stylesheet" href="${base}/live.css">
<script src="${base}/live.js" defer></script>
</head>
<body data-role="${role}">
<header><h1 id="title">Waiting for the session to start…</h1><p id="task"></p><p id="status" role="status"></p></header>
${operator ? `<p id="joined" aria-live="polite"></p><p id="waiting" aria-live="polite"></p><section id="operator-controls"><button id="pause" type="button">Pause</button><button id="resume" type="button">Resume</button><button id="end" type="button">End session</button><button id="next" type="button" disabled>Start the next session</button></section><section id="approvals" aria-label="Derails waiting for approval"></section>` : ""}
<ul id="people" aria-label="Participants"></ul>
<ol id="log" aria-live="polite"></ol>
<p id="typing" aria-live="polite"></p>
${
  operator
    ? ""
    : `<section id="intro" hidden><p id="instructions"></p><p id="consent"></p><button id="join" type="button">Join</button></section>
<ol id="pending" aria-label="Sent, not yet in the conversation"></ol>
<p id="download"></p>
<p id="prompt"></p>
<div id="controls"></div>
<form id="compose"><textarea id="text" rows="2" placeholder="Type a message (@Name to address someone)"></textarea><button id="send" type="submit">Send</button></form>`
}
</body>
</html>`;
}

export const liveCss = `
body { font: 15px/1.45 system-ui, sans-serif; max-width: 56rem; margin: 0 auto; padding: 1rem; color: #222; }
header h1 { font-size: 1.2rem; margin: 0; } #task { color: #555; margin: .25rem 0; } #status { color: #a40; min-height: 1.2em; margin: 0; }
#people { list-style: none; padding: 0; display: flex; gap: .5rem; flex-wrap: wrap; }
#people li { cursor: pointer; background: #eef; border-radius: 1rem; padding: .1rem .6rem; }
#log { list-style: none; padding: 0; border-top: 1px solid #ddd; }
#log li { padding: .3rem 0; border-bottom: 1px solid #f0f0f0; white-space: pre-wrap; }
#log li.system { color: #666; font-style: italic; } #log li.reasoning { color: #746; background: #faf5ff; }
#log li.mine { background: #f2fbf2; } #log .who { font-weight: 600; margin-right: .4rem; }
#log details pre { font-size: 12px; white-space: pre-wrap; color: #444; }
#typing { color: #777; min-height: 1.2em; font-style: italic; } #prompt { font-weight: 600; min-height: 1.2em; }
#controls button, #operator-controls button { margin: 0 .4rem .4rem 0; }
#compose { display: flex; gap: .5rem; } #compose textarea { flex: 1; font: inherit; }
#approvals .approval { border: 1px solid #d9a; padding: .5rem; margin: .5rem 0; }
#intro p { white-space: pre-wrap; } #consent { border: 1px solid #ccd; padding: .5rem; }
#pending { list-style: none; padding: 0; color: #777; } #pending li { white-space: pre-wrap; font-style: italic; }
body[data-intro="true"] #people, body[data-intro="true"] #log, body[data-intro="true"] #compose, body[data-intro="true"] #controls { display: none; }
`;

export const liveScript = `"use strict";
(function () {
  var role = document.body.dataset.role;
  var token = location.pathname.split("/")[2];
  var me = null;
  var names = {};
  var labels = { "/mode explore": "Explore", "/mode focus": "Focus", "/facilitator": "Call the facilitator", "/summary": "Ask for the summary", "/hand": "Raise hand", "/approve": "Approve", "/reject": "Reject", "/end": "End" };
  var base = [];
  var asked = [];
  var prompted = false;
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  // Resolves true once the server accepted the request; false (with the reason shown) otherwise.
  function post(path, body) {
    return fetch(path, { method: "POST", headers: { "content-type": "application/json", "x-colloquy-token": token }, body: JSON.stringify(body) })
      .then(function (r) {
        if (r.ok) return true;
        return r.json().catch(function () { return {}; }).then(function (j) { $("status").textContent = "Not sent: " + (j.error || ("error " + r.status)); return false; });
      }, function (error) { $("status").textContent = "Not sent (no connection to the session: " + error.message + ")"; return false; });
  }
  function nameOf(id) { return id === "system" ? "" : (names[id] || id); }
  function renderControls() {
    var box = $("controls"); if (!box) return;
    box.textContent = "";
    if (prompted) {
      var pass = el("button", null, "Pass"); pass.type = "button"; pass.dataset.command = "pass";
      pass.addEventListener("click", function () { post("/api/pass", {}); });
      box.appendChild(pass);
    }
    base.concat(asked).forEach(function (command) {
      var b = el("button", null, labels[command] || command); b.type = "button"; b.dataset.command = command;
      b.addEventListener("click", function () { post("/api/post", { text: command }); });
      box.appendChild(b);
    });
  }
  var typingTimer = null;
  function showTyping(id) {
    if (!names[id] || id === me) return;
    $("typing").textContent = names[id] + " is typing…";
    clearTimeout(typingTimer);
    typingTimer = setTimeout(function () { $("typing").textContent = ""; }, 3000);
  }
  // What this person sent that no turn holds yet (the session takes posts at its next decision
  // point, which a slow or failing model can hold up): shown, so sent words never seem to vanish.
  // A turn can reach the page before the server's answer to the post: kept while posts are under way.
  // A reconnected page (or a resumed run) gets the session's turns again: each turn settles a post once, by its id.
  var inFlight = 0, saidEarly = [], settled = {};
  function addPending(text) {
    var early = saidEarly.indexOf(text.trim());
    if (early >= 0) return void saidEarly.splice(early, 1);
    if (!$("pending") || text.trim().charAt(0) === "/") return;
    var li = el("li", null, "Sent, waiting for its turn: " + text); li.dataset.text = text.trim(); $("pending").appendChild(li);
  }
  function dropPending(text) {
    var items = $("pending") ? $("pending").children : [];
    for (var i = 0; i < items.length; i++) if (items[i].dataset.text === text.trim()) { items[i].remove(); return; }
    if (inFlight > 0) saidEarly.push(text.trim());
  }
  function addTurn(turn) {
    if (turn.speaker === me && me && !settled[turn.id]) { settled[turn.id] = true; dropPending(turn.text); }
    var li = el("li", turn.type + (turn.speaker === me ? " mine" : ""));
    li.dataset.speaker = turn.speaker; li.dataset.type = turn.type; li.dataset.id = turn.id;
    if (turn.speaker !== "system") li.appendChild(el("span", "who", nameOf(turn.speaker) + (turn.type !== "message" ? " [" + turn.type + "]" : "") + ":"));
    if (turn.addressees && turn.addressees.length) li.appendChild(el("span", "to", "→ " + turn.addressees.map(nameOf).join(", ") + " "));
    li.appendChild(el("span", "text", turn.text));
    if (role === "operator" && turn.metadata) {
      var d = el("details"); d.appendChild(el("summary", null, "decision")); d.appendChild(el("pre", null, JSON.stringify(turn.metadata, null, 2))); li.appendChild(d);
    }
    // A turn sent again was amended (an interruption cut it): it replaces the one shown.
    var shown = document.querySelector('#log li[data-id="' + turn.id + '"]');
    if (shown) { shown.replaceWith(li); return; }
    $("log").appendChild(li);
    if (turn.speaker !== "system" && $("typing").textContent.indexOf(nameOf(turn.speaker)) === 0) $("typing").textContent = "";
    li.scrollIntoView({ block: "end" });
  }
  // The operator sees who the session is waiting for (a person, or an agent's model call), since when and for how long at most.
  var waiting = {};
  function renderWaiting() {
    var box = $("waiting"); if (!box) return;
    box.textContent = Object.keys(waiting).map(function (id) {
      var w = waiting[id];
      var who = w.model === undefined ? nameOf(id) : w.model ? nameOf(w.model) + "'s model" : "the model";
      return "Waiting for " + who + " since " + w.since.toLocaleTimeString() + (w.timeout !== undefined ? " (at most " + w.timeout + " s)" : "");
    }).join("; ");
  }
  // Who has joined (the operator's): shown again once the session names everyone.
  var presence = null;
  function renderPresence() {
    var m = presence; if (!m || !$("joined")) return;
    $("joined").textContent = "Joined: " + (m.online.map(nameOf).join(", ") || "nobody yet") +
      (m.expected.length > m.online.length ? "; not here: " + m.expected.filter(function (id) { return m.online.indexOf(id) < 0; }).map(nameOf).join(", ") : "");
    document.body.dataset.joined = String(m.online.length);
  }
  function addApproval(m) {
    var box = el("div", "approval"); box.dataset.id = String(m.id);
    box.appendChild(el("p", null, m.request.derailer + " wants to derail (" + m.request.kind + "):"));
    var t = el("textarea"); t.value = m.request.proposed; t.rows = 3; t.cols = 60; box.appendChild(t);
    [["approve", "Approve"], ["edit", "Approve my edit"], ["dismiss", "Dismiss"]].forEach(function (a) {
      var b = el("button", null, a[1]); b.type = "button"; b.dataset.decision = a[0];
      b.addEventListener("click", function () { post("/api/approve", a[0] === "edit" ? { id: m.id, decision: "edit", text: t.value } : { id: m.id, decision: a[0] }); });
      box.appendChild(b);
    });
    $("approvals").appendChild(box);
  }
  function handle(m) {
    switch (m.type) {
      case "session":
        waiting = {}; renderWaiting(); document.body.dataset.between = "false"; document.body.dataset.ended = "false"; if ($("download")) $("download").textContent = ""; if ($("next")) $("next").disabled = true; $("log").textContent = ""; $("people").textContent = ""; names = {};
        $("title").textContent = m.title; $("task").textContent = m.task;
        m.participants.forEach(function (p) {
          names[p.id] = p.name;
          if (p.kind === "system") return;
          var li = el("li", null, p.name + (p.id === me ? " (you)" : "")); li.dataset.id = p.id;
          li.addEventListener("click", function () { var t = $("text"); if (t) { t.value = "@" + p.name + " " + t.value; t.focus(); } });
          $("people").appendChild(li);
        });
        base = m.controls || []; asked = []; renderControls(); renderPresence();
        document.body.dataset.ready = "true";
        // After a lost connection (the run stopped and was resumed), the page says the session goes on.
        $("status").textContent = reconnected ? "Reconnected: the session goes on. Everything sent before is kept." : "";
        break;
      case "turn": addTurn(m.turn); break;
      case "typing": case "person-typing": showTyping(m.participant); break;
      case "ask": if (role === "operator") { waiting[m.participant] = { since: m.at ? new Date(m.at) : new Date(), timeout: m.timeoutSeconds }; renderWaiting(); } if ($("prompt")) { $("prompt").textContent = m.prompt; asked = m.controls || []; prompted = true; renderControls(); } break;
      case "model":
        if (role !== "operator") break;
        if (m.waiting) waiting["model:" + (m.participant || "")] = { since: m.at ? new Date(m.at) : new Date(), model: m.participant || "" }; else delete waiting["model:" + (m.participant || "")];
        renderWaiting(); break;
      case "asked": if (role === "operator") { delete waiting[m.participant]; renderWaiting(); } if ($("prompt")) { $("prompt").textContent = ""; asked = []; prompted = false; renderControls(); } break;
      case "paused": $("status").textContent = m.paused ? "Paused by the operator" : ""; document.body.dataset.paused = String(m.paused); break;
      case "approval": addApproval(m); break;
      case "approved": var done = document.querySelector('.approval[data-id="' + m.id + '"]'); if (done) done.remove(); if (m.decision === "withdrawn") $("status").textContent = "A held derail no longer waits: " + m.why + "."; break;
      case "between":
        // After the last session (closing) a person's page stays as it is: the session is over, its transcript there.
        if (m.closing && role !== "operator") break;
        document.body.dataset.between = "true";
        if (role === "operator") {
          $("next").disabled = false; $("next").textContent = m.opening ? "Start the session" : m.closing ? "Close the pages" : "Start the next session";
          $("status").textContent = m.opening ? "Waiting room: start " + m.next + " when everyone has joined." :
            m.closing ? "All sessions are done. The pages stay open for the transcripts: close them when everyone has theirs." :
            "Session over. Next: " + m.next + ". Start it when everyone is ready.";
        } else $("status").textContent = m.opening ? "You are in the waiting room: the session starts when the researcher starts it." : "Please wait: the next part starts soon.";
        break;
      case "presence": presence = m; renderPresence(); break;
      case "end":
        waiting = {}; renderWaiting();
        // A session stopped by a failure or an interruption may be resumed: the page waits for it (and reconnects) instead of saying goodbye.
        $("status").textContent = m.incomplete ? "The session stopped" + (m.reason ? " (" + m.reason + ")" : "") + ". Please keep this page open: it may go on shortly." : "The session is over" + (m.reason ? " (" + m.reason + ")." : ".");
        document.body.dataset.ended = m.incomplete ? "stopped" : "true";
        // Over for good: the next session numbers its turns from the start again.
        if (!m.incomplete) settled = {};
        // The transcript as this person saw it: a plain-text file from this page's own address.
        if (transcriptOffered && $("download")) {
          var a = el("a", null, "Download the transcript"); a.id = "transcript"; a.href = "/p/" + token + "/transcript.txt"; a.download = "transcript.txt";
          $("download").textContent = ""; $("download").appendChild(a);
        }
        break;
    }
  }
  var lost = false, reconnected = false;
  function connect() {
    var source = new EventSource("/events?token=" + encodeURIComponent(token));
    // The browser reconnects on its own; the page says what is going on meanwhile.
    source.onerror = function () {
      // After the last session ended the run closes the pages: the page keeps saying the session is over.
      if (lost || document.body.dataset.ended === "true") return;
      lost = true; document.body.dataset.connection = "lost";
      $("status").textContent = "Connection to the session lost: reconnecting… (what you type stays in the box until it is sent)";
    };
    source.onopen = function () {
      if (!lost) return;
      lost = false; reconnected = true; document.body.dataset.connection = "reconnected";
      $("status").textContent = "Reconnected: the session goes on. Everything sent before is kept.";
    };
    source.addEventListener("hello", function (e) { var v = JSON.parse(e.data); me = v.id || null; });
    source.onmessage = function (e) { handle(JSON.parse(e.data)); };
  }
  // A participant reads the study's instructions and consent first; the page joins only when they agree.
  var transcriptOffered = false;
  function introduce(intro) {
    transcriptOffered = Boolean(intro.transcript);
    if (!intro.instructions && !intro.consent) return connect();
    document.body.dataset.intro = "true";
    $("intro").hidden = false;
    $("instructions").textContent = intro.instructions || "";
    $("consent").textContent = intro.consent || "";
    if (intro.consent) $("join").textContent = "I agree and join";
    $("join").addEventListener("click", function () {
      post("/api/join", intro.consent ? { agree: true } : {}).then(function (ok) {
        if (!ok) return;
        $("intro").hidden = true; document.body.dataset.intro = "false"; $("status").textContent = "";
        connect();
      });
    });
  }
  if (role === "operator") connect();
  else fetch("/p/" + token + "/intro").then(function (r) { return r.json(); }).then(introduce, function () { connect(); });
  if (role === "operator") {
    $("pause").addEventListener("click", function () { post("/api/control", { action: "pause" }); });
    $("resume").addEventListener("click", function () { post("/api/control", { action: "resume" }); });
    $("end").addEventListener("click", function () { post("/api/control", { action: "end" }); });
    $("next").addEventListener("click", function () { post("/api/control", { action: "next" }); });
  } else {
    var lastTyping = 0;
    $("text").addEventListener("input", function () {
      if (Date.now() - lastTyping > 2000) { lastTyping = Date.now(); post("/api/typing", {}); }
    });
    $("text").addEventListener("keydown", function (e) { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("compose").requestSubmit(); } });
    $("compose").addEventListener("submit", function (e) {
      e.preventDefault();
      var text = $("text").value;
      if (!text.trim()) return;
      // The box is emptied only once the server took the message: refused, the words stay.
      inFlight++;
      post("/api/post", { text: text }).then(function (sent) {
        if (--inFlight === 0 && !sent) saidEarly = [];
        if (!sent) return;
        addPending(text);
        if (inFlight === 0) saidEarly = [];
        if ($("text").value === text) $("text").value = "";
        if ($("status").textContent.indexOf("Not sent") === 0) $("status").textContent = "";
      });
    });
  }
})();
`;
