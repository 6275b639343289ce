// A tag with a house-shaped notch: the product's mark. Decorative; the link around it carries the name.
export function LogoMark() {
  return (
    <svg className="logo-mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      <path d="M16 3 29 14v15H3V14Z" fill="currentColor" />
      <circle cx="16" cy="15" r="3.5" fill="#fff" />
      <rect x="10" y="21" width="12" height="3" rx="1.5" fill="#fff" />
    </svg>
  );
}
