import Link from 'next/link';

const PAGES = [
  ['/account', 'Profile'],
  ['/account/orders', 'Orders'],
  ['/account/addresses', 'Addresses'],
  ['/account/sessions', 'Sessions'],
  ['/account/password', 'Password'],
] as const;

export function AccountNav() {
  return (
    <nav aria-label="Account" className="sub-nav">
      <ul>
        {PAGES.map(([href, name]) => (
          <li key={href}>
            <Link href={href}>{name}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
