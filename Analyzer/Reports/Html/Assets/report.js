// Draws the report's charts with Chartist from the JSON in #report-charts (written by HtmlReport.cs), and says in
// #report-status whether that worked: data-status="ok" once every chart has been drawn, "error" otherwise. This file
// only translates options JSON cannot carry (functions, axis types) and adds tooltips; Chartist does the drawing.
// It also opens a case under the picture when its bar is clicked.
(function () {
  'use strict';
  var status = document.getElementById('report-status');
  var failed = false;

  function fail(message) {
    failed = true;
    status.setAttribute('data-status', 'error');
    status.textContent = 'Report script error: ' + message;
  }

  window.addEventListener('error', function (e) { fail(e.message || 'unknown error'); });

  function formatNumber(v) {
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
    if (a >= 100 || v === Math.round(v)) return v.toFixed(0);
    if (a >= 1) return v.toFixed(1);
    return v.toPrecision(2);
  }

  // "tickLabels": [[value, label], ...] -> the label of the nearest listed value, nothing elsewhere.
  function tickLabelFunction(pairs) {
    return function (value) {
      for (var i = 0; i < pairs.length; i++) {
        if (Math.abs(pairs[i][0] - value) < 1e-6) return pairs[i][1];
      }
      return '';
    };
  }

  function convertAxis(axis) {
    if (!axis) return axis;
    var out = {};
    Object.keys(axis).forEach(function (key) { out[key] = axis[key]; });
    if (axis.scale === 'fixed') out.type = Chartist.FixedScaleAxis;
    else if (axis.scale === 'auto') out.type = Chartist.AutoScaleAxis;
    else if (axis.scale === 'step') out.type = Chartist.StepAxis;
    delete out.scale;
    if (axis.tickLabels) {
      out.labelInterpolationFnc = tickLabelFunction(axis.tickLabels);
      delete out.tickLabels;
    } else if (typeof axis.unit === 'string') {
      var unit = axis.unit;
      out.labelInterpolationFnc = function (value) {
        return typeof value === 'number' ? formatNumber(value) + unit : value;
      };
      delete out.unit;
    }
    return out;
  }

  function convertOptions(options) {
    var out = {};
    Object.keys(options).forEach(function (key) { out[key] = options[key]; });
    out.axisX = convertAxis(options.axisX);
    out.axisY = convertAxis(options.axisY);
    if (options.lineSmooth === 'none') out.lineSmooth = Chartist.Interpolation.none({ fillHoles: false });
    return out;
  }

  // A native SVG <title> is the tooltip: no extra library, works in every browser.
  function addTooltip(data) {
    if (!data.meta || !data.element || !data.element._node) return;
    if (data.type !== 'bar' && data.type !== 'point') return;
    var title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = String(data.meta);
    data.element._node.appendChild(title);
  }

  // A folded section (details.fold) has no width, and Chartist measures its container when it draws: the folds are
  // opened while the charts are first drawn and closed again once every chart is in; opening one later redraws its
  // charts at the width they then have.
  function foldsAround(specs) {
    var folds = [];
    specs.forEach(function (spec) {
      for (var node = document.getElementById(spec.id); node; node = node.parentElement) {
        if (node.tagName === 'DETAILS' && folds.indexOf(node) < 0) folds.push(node);
      }
    });
    return folds;
  }

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === 'DETAILS') node.open = true;
    }
    var fold = target && target.tagName === 'SECTION' && target.querySelector('details.fold');
    if (fold) fold.open = true;
  }

  // A click on a bar of the picture opens its case under the picture: copies of its verdict, its hot methods and its
  // call tree (with the flame graph's link), ids left out so the page keeps one of each. A second click closes it.
  function openCase(cell) {
    var panel = document.getElementById('case-panel');
    var name = cell.getAttribute('data-case');
    var selected = document.querySelector('.picture-cell.selected');
    if (selected) selected.classList.remove('selected');
    if (!panel.hidden && panel.getAttribute('data-case') === name) { panel.hidden = true; return; }
    panel.textContent = '';
    panel.setAttribute('data-case', name);
    var head = document.createElement('h3');
    head.textContent = name;
    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'close';
    close.addEventListener('click', function () { panel.hidden = true; cell.classList.remove('selected'); });
    head.appendChild(close);
    panel.appendChild(head);
    var parts = [];
    document.querySelectorAll('details.verdict').forEach(function (d) { if (d.getAttribute('data-case') === name) parts.push(d); });
    document.querySelectorAll('#tables details').forEach(function (d) {
      var caption = d.querySelector('caption');
      if (caption && caption.textContent.indexOf(name + ': top ') === 0) parts.push(d);
    });
    var tree = document.getElementById(cell.getAttribute('href').slice(1));
    if (tree) parts.push(tree);
    parts.forEach(function (part) {
      var copy = part.cloneNode(true);
      copy.removeAttribute('id');
      copy.querySelectorAll('[id]').forEach(function (e) { e.removeAttribute('id'); });
      copy.open = true;
      panel.appendChild(copy);
    });
    if (parts.length === 0) panel.appendChild(document.createTextNode('Nothing more on this page about this case.'));
    cell.classList.add('selected');
    panel.hidden = false;
  }

  document.querySelectorAll('.picture-cell[data-case]').forEach(function (cell) {
    cell.addEventListener('click', function (e) { e.preventDefault(); openCase(cell); });
  });

  try {
    if (typeof Chartist === 'undefined') throw new Error('the Chartist library did not load');
    var specs = JSON.parse(document.getElementById('report-charts').textContent);
    var drawn = 0;
    var charts = [];
    var folds = foldsAround(specs);
    var closed = folds.filter(function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
    var finish = function () {
      if (failed || drawn < specs.length) return;
      closed.forEach(function (d) { d.open = false; });
      closed = [];
      openTarget();
      status.setAttribute('data-status', 'ok');
      status.setAttribute('data-charts', String(drawn));
      status.textContent = 'All ' + drawn + ' charts drawn. Hover a bar or point for its value; open a folded part to see it.';
    };
    specs.forEach(function (spec) {
      var Chart = spec.kind === 'bar' ? Chartist.Bar : Chartist.Line;
      var chart = new Chart('#' + spec.id, spec.data, convertOptions(spec.options));
      charts.push({ chart: chart, node: document.getElementById(spec.id) });
      var counted = false;
      chart.on('draw', addTooltip);
      chart.on('created', function () {
        if (counted) return; // Chartist redraws on resize: count each chart once
        counted = true;
        drawn++;
        finish();
      });
    });
    folds.forEach(function (d) {
      d.addEventListener('toggle', function () {
        if (!d.open || closed.length > 0) return;
        charts.forEach(function (c) { if (d.contains(c.node)) c.chart.update(); });
      });
    });
    window.addEventListener('hashchange', openTarget);
    finish();
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
