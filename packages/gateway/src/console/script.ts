// The console's one script, served from assets/console.js: no framework, no build step.

export const CONSOLE_JS = `'use strict';
// Copy buttons, confirmations, a way back, and a busy state while a form is submitted. Nothing else.
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
`;
