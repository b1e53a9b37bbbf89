// The console's one script, served from assets/console.js: no framework, no build step.

export const CONSOLE_JS = `'use strict';
// Copy buttons, confirmations, a way back, a busy state while a form is submitted, and a
// transaction page's live parts kept fresh while a delivery is pending. Nothing else.
document.addEventListener('click', function (event) {
  var back = event.target instanceof Element ? event.target.closest('[data-back]') : null;
  if (back && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
    return;
  }
  var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) return;
  var done = function () {
    var status = document.getElementById(button.getAttribute('data-copy') + '-status');
    if (status) status.textContent = 'Copied';
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(field.value).then(done, function () {
      field.select();
      document.execCommand('copy');
      done();
    });
  } else {
    field.select();
    document.execCommand('copy');
    done();
  }
});
document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  var question = form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  form.setAttribute('aria-busy', 'true');
  var buttons = form.querySelectorAll('button[type="submit"], button:not([type])');
  window.setTimeout(function () {
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = true;
      buttons[i].textContent = 'Working…';
    }
  }, 0);
});
// A transaction's page: while a delivery is pending (data-live-active), its live parts
// (data-live-part: the notifications and the outcome of a replay) are fetched again from
// data-live-url every second and swapped in; it stops once nothing is pending, after ten minutes,
// or at the first failure (a reload then shows the state). Hidden tabs wait until shown again.
(function () {
  var POLL_MS = 1000;
  var LIMIT_MS = 10 * 60 * 1000;
  var started = Date.now();
  var current = function () {
    return document.querySelector('[data-live-url]');
  };
  var swap = function (text) {
    var t = document.createElement('template');
    t.innerHTML = text;
    var parts = t.content.querySelectorAll('[data-live-part][id]');
    for (var i = 0; i < parts.length; i++) {
      var fresh = parts[i];
      var old = document.getElementById(fresh.id);
      if (!old || !old.hasAttribute('data-live-part')) continue;
      // What the reader opened stays open; the focused control keeps the focus.
      var open = old.querySelectorAll('details[open][id]');
      for (var j = 0; j < open.length; j++) {
        var again = fresh.querySelector('#' + CSS.escape(open[j].id));
        if (again) again.setAttribute('open', '');
      }
      if (old.isEqualNode(fresh)) continue;
      var focused = document.activeElement && old.contains(document.activeElement) ? document.activeElement.id : '';
      // The element itself stays (a live region is announced only if it stays): its attributes and content change.
      for (var k = old.attributes.length - 1; k >= 0; k--) {
        if (!fresh.hasAttribute(old.attributes[k].name)) old.removeAttribute(old.attributes[k].name);
      }
      for (var m = 0; m < fresh.attributes.length; m++) {
        old.setAttribute(fresh.attributes[m].name, fresh.attributes[m].value);
      }
      old.replaceChildren.apply(old, Array.prototype.slice.call(fresh.childNodes));
      if (focused) {
        var back = document.getElementById(focused);
        if (back) back.focus();
      }
    }
  };
  var tick = function () {
    var el = current();
    if (!el || el.getAttribute('data-live-active') !== 'true' || Date.now() - started > LIMIT_MS) return;
    if (document.hidden) {
      document.addEventListener('visibilitychange', function wake() {
        if (document.hidden) return;
        document.removeEventListener('visibilitychange', wake);
        tick();
      });
      return;
    }
    fetch(el.getAttribute('data-live-url'), {
      credentials: 'same-origin',
      redirect: 'error',
      cache: 'no-store',
      headers: { accept: 'text/html' },
    })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.text();
      })
      .then(function (text) {
        swap(text);
        window.setTimeout(tick, POLL_MS);
      })
      .catch(function () {});
  };
  var begin = function () {
    var el = current();
    if (el && el.getAttribute('data-live-active') === 'true') window.setTimeout(tick, POLL_MS);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', begin);
  else begin();
})();
`;
