// The shop's own script, on top of htmx. Every page works without it; it
// adds what a person needs while and after htmx talks to the shop:
//   - the button pressed is disabled and busy until the answer comes (a
//     plain form's button is marked busy while the next page loads);
//   - a failed request (other than the form errors htmx swaps in) says so
//     in the toast at the bottom of the page;
//   - a page whose form token went stale (open overnight, signed in or out
//     in another tab) is reloaded by the shop with a fresh token and a note;
//     what was typed into the form is put back;
//   - after a swap, focus goes to the first field in error, or stays with
//     the updated part when the focused element went away;
//   - a field's message swapped in beside it marks the field invalid (or
//     valid again);
//   - a page or swap with an error summary scrolls it into view.
// It is a file, not inline script: the CSP allows none.
(function () {
  'use strict';

  // Requests a person started (not polling): what to undo when they end.
  var pending = new WeakMap();

  function isPolling(elt) {
    var trigger = elt.getAttribute('hx-trigger') || '';
    return /\bevery\b|\bload\b/.test(trigger);
  }

  // The button that shows the spinner: the one pressed, or the form's
  // own when a form was sent otherwise (a quantity changed). A field that
  // asks on its own (a code at checkout) spins the part it updates instead.
  function submitterOf(evt, elt) {
    var trig = evt.detail.requestConfig && evt.detail.requestConfig.triggeringEvent;
    if (trig && trig.submitter) return trig.submitter;
    if (elt.matches('button, [role="button"], a')) return elt;
    if (elt.matches('form')) return elt.querySelector('button[type="submit"], button:not([type])');
    return null;
  }

  document.addEventListener('htmx:beforeRequest', function (evt) {
    var elt = evt.detail.elt;
    if (!(elt instanceof Element) || isPolling(elt)) return;
    // Disabling the focused button takes its focus away: remember where it
    // was, to give it back after the swap.
    var active = document.activeElement;
    var state = { elt: elt, buttons: [], target: null, focusID: active && active.id };
    var form = elt.closest('form');
    var pressed = submitterOf(evt, elt);
    var buttons = form ? Array.prototype.slice.call(form.querySelectorAll('button')) : [];
    if (pressed && buttons.indexOf(pressed) < 0) buttons.push(pressed);
    buttons.forEach(function (b) {
      if (b.disabled || b.getAttribute('aria-disabled') === 'true') return;
      if (b.tagName === 'BUTTON') b.disabled = true;
      else b.setAttribute('aria-disabled', 'true');
      if (b === pressed) b.setAttribute('aria-busy', 'true');
      state.buttons.push(b);
    });
    if (pressed && buttons.length === 0 && pressed.tagName === 'A') {
      pressed.setAttribute('aria-busy', 'true');
      state.buttons.push(pressed);
    }
    // The part about to be replaced tells assistive technology it is
    // updating, and dims.
    var target = evt.detail.target;
    if (target instanceof Element && target.matches('section, form, div, article')) {
      target.setAttribute('aria-busy', 'true');
      target.classList.add('shop-updating');
      state.target = target;
    }
    pending.set(evt.detail.xhr, state);
  });

  document.addEventListener('htmx:afterRequest', function (evt) {
    var state = pending.get(evt.detail.xhr);
    if (!state) return;
    state.buttons.forEach(function (b) {
      if (b.tagName === 'BUTTON') b.disabled = false;
      else b.removeAttribute('aria-disabled');
      b.removeAttribute('aria-busy');
    });
    if (state.target) {
      state.target.removeAttribute('aria-busy');
      state.target.classList.remove('shop-updating');
    }
    if (evt.detail.successful) hideToast();
  });

  // A plain form (checkout's "Place order") shows it is on its way too;
  // Pico's busy button also takes no second click. A page brought back
  // from the back-forward cache is not busy any more.
  document.addEventListener('submit', function (evt) {
    var form = evt.target;
    if (evt.defaultPrevented || !(form instanceof HTMLFormElement) || form.matches('[hx-post], [hx-get]')) return;
    var button = evt.submitter || form.querySelector('button[type="submit"], button:not([type])');
    if (button) button.setAttribute('aria-busy', 'true');
  });
  window.addEventListener('pageshow', function () {
    document.querySelectorAll('form button[aria-busy="true"]').forEach(function (b) { b.removeAttribute('aria-busy'); });
  });

  // Messages.

  function toast() { return document.getElementById('toast'); }

  function showToast(message) {
    var t = toast();
    if (!t) return;
    t.querySelector('p').textContent = message;
    t.hidden = false;
  }

  function hideToast() {
    var t = toast();
    if (t && !t.hidden) t.hidden = true;
  }

  document.addEventListener('click', function (evt) {
    if (evt.target instanceof Element && evt.target.closest('[data-testid="toast-close"]')) hideToast();
  });

  // The message of the shop's error panel, read as text (never inserted
  // as HTML).
  function messageOf(xhr) {
    var type = xhr.getResponseHeader('Content-Type') || '';
    if (type.indexOf('text/html') === 0 && xhr.responseText) {
      var doc = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      var p = doc.querySelector('[data-testid="error-message"]');
      if (p && p.textContent.trim()) return p.textContent.trim();
    }
    if (xhr.status === 0) return 'The shop could not be reached. Check your connection and try again.';
    if (xhr.status >= 500) return 'Something went wrong on our side. Please try again.';
    return 'That did not work (error ' + xhr.status + '). Reload the page and try again.';
  }

  function failed(evt, message) {
    var elt = evt.detail.elt;
    // An old "Added …" next to the button would say the opposite.
    var form = elt instanceof Element ? elt.closest('form') : null;
    if (form) {
      form.querySelectorAll('[role="status"]').forEach(function (n) { n.remove(); });
    }
    showToast(message);
  }

  document.addEventListener('htmx:responseError', function (evt) {
    failed(evt, messageOf(evt.detail.xhr));
  });
  document.addEventListener('htmx:sendError', function (evt) {
    failed(evt, 'The shop could not be reached. Check your connection and try again.');
  });
  document.addEventListener('htmx:timeout', function (evt) {
    failed(evt, 'The shop took too long to answer. Try again in a moment.');
  });

  // A stale form token: the shop answers with HX-Refresh and this header,
  // and htmx reloads the page. Keep what was typed into the form (never a
  // password, a card or a hidden field) for the reloaded page.
  var keptKey = 'shop:kept-form';

  function keepable(field) {
    if (!field.name || field.disabled) return false;
    var type = (field.type || '').toLowerCase();
    if (['hidden', 'password', 'submit', 'button', 'file'].indexOf(type) >= 0) return false;
    var ac = (field.getAttribute('autocomplete') || '').toLowerCase();
    return ac.indexOf('cc-') !== 0;
  }

  document.addEventListener('htmx:beforeOnLoad', function (evt) {
    var xhr = evt.detail.xhr;
    if (xhr.getResponseHeader('Shop-Page-Expired') !== 'true') return;
    var elt = evt.detail.elt;
    var form = elt instanceof Element ? elt.closest('form') : null;
    if (!form) return;
    var values = [];
    Array.prototype.forEach.call(form.elements, function (f) {
      if (!keepable(f)) return;
      if ((f.type === 'radio' || f.type === 'checkbox') && !f.checked) return;
      values.push([f.name, f.value, f.type]);
    });
    try {
      sessionStorage.setItem(keptKey, JSON.stringify({ path: location.pathname, action: form.getAttribute('action'), values: values }));
    } catch (e) { /* storage off: the note still explains */ }
  });

  function restoreKeptForm() {
    var raw = null;
    try {
      raw = sessionStorage.getItem(keptKey);
      sessionStorage.removeItem(keptKey);
    } catch (e) { return; }
    if (!raw) return;
    var kept;
    try { kept = JSON.parse(raw); } catch (e) { return; }
    if (!kept || kept.path !== location.pathname) return;
    var form = Array.prototype.find.call(document.forms, function (f) { return f.getAttribute('action') === kept.action; });
    if (!form) return;
    kept.values.forEach(function (v) {
      var fields = Array.prototype.filter.call(form.elements, function (f) { return f.name === v[0] && keepable(f); });
      fields.forEach(function (f) {
        if (f.type === 'radio' || f.type === 'checkbox') f.checked = f.value === v[1];
        else f.value = v[1];
      });
    });
    var button = form.querySelector('button[type="submit"], button:not([type])');
    if (button) button.focus();
  }

  // Focus and scrolling.

  function focusField(field) {
    field.focus({ preventScroll: true });
  }

  // showErrors puts the summary in view and focus on the first field in
  // error (or on the summary when only the form as a whole is wrong).
  function showErrors(root, summaryOnly) {
    var summary = root.querySelector('.error-summary');
    var field = root.querySelector('[aria-invalid="true"]');
    if (summary) {
      summary.scrollIntoView({ block: 'start' });
      if (field && !summaryOnly) {
        var r = field.getBoundingClientRect();
        if (r.bottom > window.innerHeight) field.scrollIntoView({ block: 'center' });
        focusField(field);
      } else {
        summary.focus({ preventScroll: true });
      }
      return true;
    }
    if (field) {
      field.focus();
      return true;
    }
    return false;
  }

  document.addEventListener('htmx:afterSwap', function (evt) {
    var state = pending.get(evt.detail.xhr);
    if (!state || state.focused) return;
    var swapped = evt.target;
    if (!(swapped instanceof Element)) return;
    // A part sent out of band (the header's cart count) is not where the
    // person is: it takes no focus.
    if (swapped.hasAttribute('data-oob')) return;
    if (showErrors(swapped, false)) {
      state.focused = true;
      return;
    }
    // htmx keeps focus on an element that came back with the same id; when
    // the focused element is gone, focus goes to what was updated: a panel
    // (an element with an id, such as the cart) itself, or the first link
    // or field of the rows a "show more" added.
    var active = document.activeElement;
    if (!active || active === document.body || !document.body.contains(active)) {
      var again = state.focusID && document.getElementById(state.focusID);
      if (again && !again.disabled) {
        again.focus({ preventScroll: true });
        state.focused = true;
        return;
      }
      var first = swapped.id ? null
        : swapped.matches('a[href], button, input, select, textarea') ? swapped
          : swapped.querySelector('a[href], button:not([disabled]), input:not([type="hidden"]), select, textarea');
      if (first) {
        first.focus({ preventScroll: true });
      } else {
        if (!swapped.hasAttribute('tabindex')) swapped.setAttribute('tabindex', '-1');
        swapped.focus({ preventScroll: true });
      }
      state.focused = true;
    }
  });

  // A field's note swapped in out of band (what a checkout code says
  // beside it after the summary's update) marks the field it describes:
  // invalid beside an error, valid again beside its hint. Read once
  // settled: until then htmx leaves the old note's class on the new one.
  document.addEventListener('htmx:afterSettle', function (evt) {
    var note = evt.target;
    if (!(note instanceof Element) || !note.id) return;
    document.querySelectorAll('[aria-describedby~="' + CSS.escape(note.id) + '"]').forEach(function (field) {
      if (note.classList.contains('field-error')) field.setAttribute('aria-invalid', 'true');
      else field.removeAttribute('aria-invalid');
    });
  });

  function ready() {
    restoreKeptForm();
    // A page that came back with errors (a form sent without htmx): the
    // summary is read out and in view.
    if (document.querySelector('.error-summary')) showErrors(document, true);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
