extension HTMLPageAssets {
    /// Makes every flame graph (FlameGraphChart) searchable and zoomable. Frames are placed from
    /// their samples (`data-o` left of them, `data-n` their own, `data-d` their depth), so the
    /// arithmetic is exact. Zoom: a clicked frame (or one focused, Enter or Space) becomes the
    /// full width, its callees spread below it, its callers stay full width and faded, the rest
    /// hide; Reset, Escape or a click on the root zooms out. Search: frames whose function,
    /// module or file contains the text (any case) are highlighted and the status says how many
    /// samples they cover, nested matches counted once. Labels show only where three glyphs
    /// fit. `data-ready` tells tests the page's script ran to its end.
    static let flameScript = """
        (function () {
          var glyph = 6.6;
          function percent(fraction) { return +(fraction * 100).toFixed(4) + '%'; }
          var graphs = Array.prototype.map.call(document.querySelectorAll('div.flame-graph'), function (graph) {
            var svg = graph.querySelector('svg.flame'), search = graph.querySelector('.flame-search');
            var reset = graph.querySelector('.flame-reset'), status = graph.querySelector('.flame-status');
            var statLines = +graph.dataset.statLines || 1, zoomed = null, found = '';
            var frames = Array.prototype.map.call(svg.querySelectorAll('svg.frame'), function (el) {
              var lines = el.querySelector('title').textContent.split('\\n');
              return { el: el, o: +el.dataset.o, n: +el.dataset.n, d: +el.dataset.d, label: el.querySelector('text'),
                name: lines[0], words: lines.slice(0, Math.max(1, lines.length - statLines)).join('\\n').toLowerCase() };
            });
            if (!frames.length || !(frames[0].n > 0)) return { layout: function () {} };
            var root = frames[0];
            function layout() {
              var width = svg.getBoundingClientRect().width || 1, z = zoomed || root;
              frames.forEach(function (f) {
                var inside = f.d >= z.d && f.o >= z.o && f.o + f.n <= z.o + z.n;
                var above = f.d < z.d && f.o <= z.o && f.o + f.n >= z.o + z.n;
                var w = inside ? f.n / z.n : 1;
                f.el.style.display = inside || above ? '' : 'none';
                f.el.classList.toggle('ancestor', above);
                f.el.setAttribute('x', percent(inside ? (f.o - z.o) / z.n : 0));
                f.el.setAttribute('width', percent(w));
                if (f.label) f.label.style.display = w * width >= 3 * glyph + 6 ? '' : 'none';
              });
              reset.disabled = zoomed === null;
            }
            function announce() {
              var parts = [];
              if (zoomed) parts.push('Zoomed into ' + zoomed.name + ': ' + zoomed.n + ' samples (' + (zoomed.n * 100 / root.n).toFixed(1) + '%).');
              if (found) parts.push(found);
              status.textContent = parts.join(' ');
            }
            function zoom(f) { zoomed = f === root ? null : f; layout(); announce(); }
            function find() {
              var query = search.value.trim().toLowerCase(), spans = [];
              frames.forEach(function (f) {
                var hit = query !== '' && f !== root && f.words.indexOf(query) >= 0;
                f.el.classList.toggle('match', hit);
                if (hit) spans.push([f.o, f.o + f.n]);
              });
              spans.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
              var matched = 0, end = -1;
              spans.forEach(function (s) { if (s[1] > end) { matched += s[1] - Math.max(s[0], end); end = s[1]; } });
              graph.dataset.matched = matched;
              found = query === '' ? '' : 'Matched ' + matched + ' of ' + root.n + ' samples (' + (matched * 100 / root.n).toFixed(1) + '%) in ' + spans.length + ' frame' + (spans.length === 1 ? '' : 's') + '.';
              announce();
            }
            frames.forEach(function (f) {
              f.el.addEventListener('click', function () { zoom(f); });
              f.el.addEventListener('keydown', function (event) {
                if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); zoom(f); }
                else if (event.key === 'Escape') zoom(root);
              });
            });
            reset.addEventListener('click', function () { zoom(root); });
            search.addEventListener('input', find);
            layout();
            return { layout: layout };
          });
          window.addEventListener('resize', function () { graphs.forEach(function (g) { g.layout(); }); });
          document.body.setAttribute('data-ready', 'yes');
        })();
        """
}
