import { useCallback, useEffect, useRef, useState } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client } from './client';
import { loadCurrency } from './currency';
import { LiveProvider } from './live';
import { Link, navigate, useLocation } from './router';
import { BASE, matchRoute, type Route } from './routes';
import { setSessionEndedHandler } from './ui';
import { LoginPage, NOT_ADMIN } from './pages/LoginPage';
import { DashboardPage } from './pages/DashboardPage';
import { OrdersPage } from './pages/OrdersPage';
import { OrderPage } from './pages/OrderPage';
import { DraftOrdersPage } from './pages/DraftOrdersPage';
import { ProductsPage } from './pages/ProductsPage';
import { ProductPage } from './pages/ProductPage';
import { CategoriesPage } from './pages/CategoriesPage';
import { CustomersPage } from './pages/CustomersPage';
import { CustomerGroupsPage } from './pages/CustomerGroupsPage';
import { PriceListsPage } from './pages/PriceListsPage';
import { ShippingOptionsPage } from './pages/ShippingOptionsPage';
import { WebhooksPage } from './pages/WebhooksPage';
import { RegionsPage } from './pages/RegionsPage';
import { TaxRatesPage } from './pages/TaxRatesPage';
import { GiftCardsPage } from './pages/GiftCardsPage';
import { PromotionsPage } from './pages/PromotionsPage';
import { ReturnsPage } from './pages/ReturnsPage';

type User = Schemas['UserResponseDto'];

const sections = [
  { to: '/', label: 'Dashboard', routes: ['dashboard'] },
  { to: '/orders', label: 'Orders', routes: ['orders', 'order'] },
  { to: '/draft-orders', label: 'Draft orders', routes: ['draft-orders'] },
  { to: '/returns', label: 'Returns', routes: ['returns'] },
  { to: '/products', label: 'Products', routes: ['products', 'product', 'product-new'] },
  { to: '/categories', label: 'Categories', routes: ['categories'] },
  { to: '/customers', label: 'Customers', routes: ['customers'] },
  { to: '/customer-groups', label: 'Customer groups', routes: ['customer-groups'] },
  { to: '/price-lists', label: 'Price lists', routes: ['price-lists'] },
  { to: '/shipping-options', label: 'Shipping', routes: ['shipping-options'] },
  { to: '/regions', label: 'Regions', routes: ['regions'] },
  { to: '/tax-rates', label: 'Tax rates', routes: ['tax-rates'] },
  { to: '/gift-cards', label: 'Gift cards', routes: ['gift-cards'] },
  { to: '/promotions', label: 'Promotions', routes: ['promotions'] },
  { to: '/webhooks', label: 'Webhooks', routes: ['webhooks'] },
];

function PageOf({ route }: { route: Route }) {
  switch (route.name) {
    case 'dashboard':
      return <DashboardPage />;
    case 'orders':
      return <OrdersPage />;
    case 'order':
      return <OrderPage key={route.id} id={route.id} />;
    case 'draft-orders':
      return <DraftOrdersPage />;
    case 'products':
      return <ProductsPage />;
    case 'product-new':
      return <ProductPage key="new" id={null} />;
    case 'product':
      return <ProductPage key={route.id} id={route.id} />;
    case 'categories':
      return <CategoriesPage />;
    case 'customers':
      return <CustomersPage />;
    case 'customer-groups':
      return <CustomerGroupsPage />;
    case 'price-lists':
      return <PriceListsPage />;
    case 'shipping-options':
      return <ShippingOptionsPage />;
    case 'regions':
      return <RegionsPage />;
    case 'tax-rates':
      return <TaxRatesPage />;
    case 'gift-cards':
      return <GiftCardsPage />;
    case 'promotions':
      return <PromotionsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'returns':
      return <ReturnsPage />;
    default:
      return (
        <>
          <h1>Page not found</h1>
          <p>
            <Link to="/">Go to the dashboard</Link>
          </p>
        </>
      );
  }
}

/** The signed-in console: navigation, sign out, and the page of the route. */
function Shell({ user, route, onSignOut }: { user: User; route: Route; onSignOut: () => void }) {
  useEffect(() => {
    loadCurrency().catch(() => undefined);
  }, []);
  // After following a link, focus goes to the new page's content (as a page load would put it at the top),
  // so that keyboard and screen reader users start there rather than in the navigation.
  const pathname = window.location.pathname;
  const firstPage = useRef(true);
  useEffect(() => {
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [pathname]);
  return (
    <LiveProvider>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Commerce admin</span>
        <nav aria-label="Main">
          <ul>
            {sections.map((section) => (
              <li key={section.to}>
                <Link to={section.to} aria-current={section.routes.includes(route.name) ? 'page' : undefined}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{user.username}</span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <PageOf route={route} />
      </main>
    </LiveProvider>
  );
}

export function App() {
  const location = useLocation();
  const route = matchRoute(location.pathname);
  // undefined while the stored session is being checked; null at once when no session is stored
  const [user, setUser] = useState<User | null | undefined>(() =>
    client.session.user === null ? null : undefined,
  );
  const [refusal, setRefusal] = useState<string | null>(null);

  const signedOut = useCallback(() => setUser(null), []);
  useEffect(() => {
    setSessionEndedHandler(signedOut);
    const off = client.session.onChange((changed) => {
      if (changed === null) signedOut();
    });
    // Without a stored session there is nobody to ask about: no GET /me (it could only answer 401).
    if (client.session.user === null) return off;
    let cancelled = false;
    client
      .data(client.api.GET('/me'))
      .then(async (me) => {
        if (cancelled) return;
        if (me.role === 'admin') return setUser(me);
        await client.session.logout().catch(() => undefined);
        setRefusal(NOT_ADMIN);
        setUser(null);
      })
      .catch(() => {
        if (!cancelled) setUser(null);
      });
    return () => {
      cancelled = true;
      off();
    };
  }, [signedOut]);

  // Signed out: every page but the sign-in page leads there, and back after signing in.
  useEffect(() => {
    if (user === null && route.name !== 'login') {
      const back = location.pathname.slice(BASE.length) + window.location.search;
      navigate(back === '' || back === '/' ? '/login' : `/login?next=${encodeURIComponent(back)}`, {
        replace: true,
      });
    }
    if (user != null && route.name === 'login') navigate('/', { replace: true });
  }, [user, route.name, location.pathname]);

  if (user === undefined) return <p className="loading">Loading…</p>;
  if (user === null) {
    if (route.name !== 'login') return null;
    return (
      <LoginPage
        refusal={refusal}
        onSignedIn={(signedIn) => {
          setRefusal(null);
          setUser(signedIn);
          const next = location.search.get('next');
          navigate(next !== null && next.startsWith('/') && !next.startsWith('//') ? next : '/', {
            replace: true,
          });
        }}
        onRefused={setRefusal}
      />
    );
  }
  return (
    <Shell
      user={user}
      route={route}
      onSignOut={() => {
        void client.session.logout().finally(() => {
          setUser(null);
          navigate('/login');
        });
      }}
    />
  );
}
