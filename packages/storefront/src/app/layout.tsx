import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { CartLink, CartProvider } from '@/components/cart';
import { RegionSelect } from '@/components/region-select';
import { currentRegion } from '@/lib/region';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Shop', template: '%s · Shop' },
  description: 'The shop',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const { regions, region } = await currentRegion();
  return (
    <html lang="en">
      <body>
        <CartProvider>
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <header className="site-header">
            <Link href="/" className="brand">
              Shop
            </Link>
            <nav aria-label="Main">
              <ul>
                <li>
                  <Link href="/search">Search</Link>
                </li>
                <li>
                  <Link href="/account">Account</Link>
                </li>
                <li>
                  <CartLink />
                </li>
              </ul>
            </nav>
            <RegionSelect
              regions={regions.map(({ id, name, currency_code }) => ({ id, name, currency_code }))}
              current={region?.id ?? null}
            />
          </header>
          <main id="main" tabIndex={-1}>
            {children}
          </main>
          <footer className="site-footer">
            <p>Prices in {region?.currency_code.toUpperCase() ?? 'the shop’s currency'}.</p>
          </footer>
        </CartProvider>
      </body>
    </html>
  );
}
