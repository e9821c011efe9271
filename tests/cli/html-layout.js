/* html-layout.js: injected into a copy of report.html by test-html.sh; writes
 * its verdict into the element #llmprof-verdict (read back with --dump-dom).
 * Fails on horizontal page overflow, overlapping SVG text, table cells whose
 * text is clipped, and (at 1366 px and wider) a kernels table whose last
 * column (Bound) is hidden. */
(function () {
	var errs = [];
	var de = document.documentElement;
	if (de.scrollWidth > window.innerWidth)
		errs.push('page overflows horizontally: ' + de.scrollWidth + ' > ' + window.innerWidth);
	function over(a, b) {
		return a.left < b.right - 1 && b.left < a.right - 1 &&
			a.top < b.bottom - 1 && b.top < a.bottom - 1;
	}
	document.querySelectorAll('svg').forEach(function (svg, si) {
		var t = Array.from(svg.querySelectorAll('text')).map(function (x) {
			return [x, x.getBoundingClientRect()];
		});
		var frame = svg.getBoundingClientRect();
		for (var i = 0; i < t.length; i++) {
			var r = t[i][1];
			if (r.left < frame.left - 1 || r.right > frame.right + 1)
				errs.push('chart ' + si + ': text cut at the edge: "' + t[i][0].textContent + '"');
			for (var j = i + 1; j < t.length; j++)
				if (over(r, t[j][1]))
					errs.push('chart ' + si + ': text overlaps: "' + t[i][0].textContent +
						'" and "' + t[j][0].textContent + '"');
		}
	});
	document.querySelectorAll('td, th').forEach(function (c) {
		if (c.scrollWidth > c.clientWidth + 1)
			errs.push('table cell clipped: "' + c.textContent.slice(0, 60) + '"');
	});
	document.querySelectorAll('table').forEach(function (t) {
		var w = t.parentElement;
		var wr = w.getBoundingClientRect(), tr = t.getBoundingClientRect();
		var scrolls = getComputedStyle(w).overflowX === 'auto' || getComputedStyle(w).overflowX === 'scroll';
		if (tr.right > wr.right + 1 && !scrolls)
			errs.push('table wider than its frame and not scrollable');
	});
	if (window.innerWidth >= 1366)
		document.querySelectorAll('table.kernels').forEach(function (t) {
			var cells = t.tHead.rows[0].cells, last = cells[cells.length - 1];
			if (last.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right + 1)
				errs.push('kernels table: the ' + last.textContent + ' column is hidden at ' +
					window.innerWidth + ' px');
		});
	var p = document.createElement('pre');
	p.id = 'llmprof-verdict';
	p.textContent = errs.length ? 'FAIL\n' + errs.slice(0, 20).join('\n') : 'PASS';
	document.body.appendChild(p);
})();
