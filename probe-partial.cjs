const { chromium } = require('playwright-core');
const http = require('http'); const fs = require('fs'); const path = require('path');
const root = 'dist/apps/web';
const html = fs.readFileSync(path.join(root, 'found.html'), 'utf8').replace(/<script type="module"[^>]*><\/script>/, '');
const cut = html.indexOf('<option value="nl"');
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/assets/')) { res.setHeader('content-type', req.url.endsWith('.css') ? 'text/css' : 'text/javascript'); res.end(fs.readFileSync(path.join(root, req.url))); return; }
  res.setHeader('content-type', 'text/html'); res.write(html.slice(0, cut)); setTimeout(() => res.end(html.slice(cut)), 500);
}).listen(0, async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
  await page.addInitScript(`window.layoutShifts = [];
      new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.layoutShifts.push({ value: entry.value, at: Math.round(entry.startTime), moved: entry.sources.map((source) => ({ node: source.node ? (source.node.outerHTML || source.node.textContent || '').slice(0, 60) : null, from: source.previousRect.toJSON(), to: source.currentRect.toJSON() })) }); }).observe({ type: 'layout-shift', buffered: true });`);
  await page.goto(`http://127.0.0.1:${server.address().port}/found/X`);
  await page.waitForTimeout(300);
  console.log(JSON.stringify(await page.evaluate('window.layoutShifts'), null, 1));
  await browser.close(); server.close();
});
