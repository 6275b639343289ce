// B7's baseline: the finder page as a minimal React + react-router app would build it, with nothing else: rendered
// in the browser (an empty root in the HTML), the same text, markup and styles as the product's page, and the same
// calls (GET /lang for the browser's languages, GET /api/v1/items/{code}; sending POSTs /api/v1/items/{code}/messages).
// Built with Vite by finder-page.bench.mjs into a temp dir; not part of the product.
import '../../../apps/web/src/styles.css';

import { StrictMode, useEffect, useId, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Link, RouterProvider, useParams } from 'react-router';

const LANGUAGES = [
  ['en', 'English'],
  ['nl', 'Nederlands'],
  ['es', 'Español'],
  ['it', 'Italiano'],
];

async function api(method, path, body) {
  const response = await fetch(`/api/v1${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body && JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  return response.status === 204 ? null : response.json();
}

function Layout({ children }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="logo">
          <svg className="logo-mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
            <path d="M16 3 29 14v15H3V14Z" fill="currentColor" />
            <circle cx="16" cy="15" r="3.5" fill="#fff" />
            <rect x="10" y="21" width="12" height="3" rx="1.5" fill="#fff" />
          </svg>
          <span>Homing</span>
        </Link>
        <div className="site-header__actions">
          <div className="language-selector">
            <label htmlFor="language" className="visually-hidden">
              Language
            </label>
            <select id="language" defaultValue="en">
              {LANGUAGES.map(([code, word]) => (
                <option key={code} value={code} lang={code} disabled={code === 'it'}>
                  {word}
                </option>
              ))}
            </select>
          </div>
          <nav aria-label="Main menu" className="main-nav">
            <ul>
              <li>
                <Link to="/login">Log in</Link>
              </li>
            </ul>
          </nav>
        </div>
      </header>
      <div className="flash-region" role="status" aria-live="polite" aria-label="Notifications" />
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <nav aria-label="Homing">
          <ul>
            <li>
              <Link to="/about">About</Link>
            </li>
            <li>
              <Link to="/rewards">Rewards</Link>
            </li>
            <li>
              <Link to="/contact">Contact</Link>
            </li>
          </ul>
        </nav>
      </footer>
    </>
  );
}

function MessageForm({ code }) {
  const id = useId();
  const [content, setContent] = useState('');
  const [email, setEmail] = useState('');
  const [state, setState] = useState('idle');
  const send = async (event) => {
    event.preventDefault();
    if (!content.trim()) return;
    setState('sending');
    try {
      if (email.trim()) await api('POST', `/items/${encodeURIComponent(code)}/set-finder`, { email: email.trim() });
      await api('POST', `/items/${encodeURIComponent(code)}/messages`, { content: content.trim() });
      setContent('');
      setState('sent');
    } catch {
      setState('error');
    }
  };
  return (
    <form noValidate onSubmit={send} className="message-form">
      <div className="field">
        <label htmlFor={`${id}-content`}>Message</label>
        <textarea id={`${id}-content`} rows={4} maxLength={2000} value={content} onChange={(event) => setContent(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-email`}>Your e-mail (optional)</label>
        <p id={`${id}-hint`} className="field__hint">
          Leave it to hear of the owner&apos;s replies. The owner never sees it.
        </p>
        <input id={`${id}-email`} type="email" autoComplete="email" aria-describedby={`${id}-hint`} value={email} onChange={(event) => setEmail(event.target.value)} />
      </div>
      {state === 'error' && (
        <p className="form-error" role="alert">
          Sending failed.
        </p>
      )}
      <button type="submit" disabled={state === 'sending'}>
        Send to the owner
      </button>
    </form>
  );
}

function FoundPage() {
  const { code = '' } = useParams();
  const [item, setItem] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', `/items/${encodeURIComponent(code)}`).then(setItem, setError);
  }, [code]);
  if (error) return <p role="alert">This tag is unknown.</p>;
  if (!item) return <p role="status">Loading…</p>;
  return (
    <section className="page found">
      <h1>You found someone&apos;s item</h1>
      <p className="intro">Thank you for taking a moment! Write to the owner below: they get your message at once, without seeing your address or phone number.</p>
      <MessageForm code={code} />
    </section>
  );
}

const router = createBrowserRouter([
  { path: '/found/:code', element: <Layout><FoundPage /></Layout> },
  { path: '*', element: <Layout><p>Not found.</p></Layout> },
]);

// The browser's languages, as the product asks them of the website.
void fetch('/lang').catch(() => undefined);

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
