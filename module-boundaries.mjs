// Each domain module's public surface: the only files of its folder that another domain module may import
// (paths under src/<domain>/, without `.ts`). Everything else there (entities, services, repositories,
// statements, private helpers) is the module's own. eslint.config.mjs turns this into no-restricted-imports
// rules; docs/extending.md#module-boundaries explains it; `npm run generate:module` adds and removes entries.
export const publicSurface = {
  auth: [
    'auth.module',
    'auth-user',
    'cookie-sessions',
    'guards',
    'password-hasher',
    'token-authenticator',
    'account-tokens',
    'dto/register.dto',
  ],
  users: ['users.module', 'user-accounts', 'user-events', 'dto/user-response.dto'],
  categories: ['categories.module', 'category-directory', 'category-events'],
  products: ['products.module', 'product-catalog', 'product-events', 'product-words'],
  orders: [
    'orders.module',
    'order-history',
    'order-events',
    'order-timeline',
    'order-events-timeline',
    'dto/order.dto',
  ],
  upload: ['upload.module', 'upload-holds'],
  sessions: ['sessions.module', 'user-sessions', 'session-events'],
  realtime: ['realtime.module'],
  webhooks: ['webhooks.module'],
  mail: ['mail.module', 'mail-jobs'],
  payments: ['payments.module', 'order-refunds', 'payments-timeline'],
  'order-timeline': ['order-timeline.module'],
  addresses: ['addresses.module', 'address-book', 'dto/address.dto'],
  'shipping-options': ['shipping-options.module', 'shipping-option-catalog', 'dto/shipping-option.dto'],
  carts: ['carts.module'],
  regions: ['regions.module', 'region-directory'],
  taxes: ['taxes.module', 'tax-provider'],
  'customer-groups': ['customer-groups.module', 'customer-group-directory'],
  'price-lists': ['price-lists.module', 'price-list-prices.module', 'price-list-prices'],
  'gift-cards': ['gift-cards.module', 'gift-card-ledger', 'gift-card-tender', 'dto/gift-card.dto'],
  promotions: ['promotions.module', 'promotion-pricing'],
  fulfilments: ['fulfilments.module', 'fulfilment-events', 'fulfilment-timeline', 'shipped-units'],
  returns: ['returns.module', 'return-events', 'return-timeline'],
  pricing: [
    'pricing.module',
    'calculator',
    'document-pricing',
    'adjusters',
    'tenders',
    'currency-prices',
    'dto/priced.dto',
    'dto/currency-price.dto',
  ],
  search: ['search.module', 'search-synonyms'],
};

// Module and file names are kebab case: only `.` needs escaping (the rule compiles with the `u` flag).
const escape = (text) => text.replaceAll('.', '\\.');

/** One eslint config entry per domain folder: importing another domain's private files is an error. */
export function moduleBoundaries() {
  const domains = Object.keys(publicSurface);
  return domains.map((domain) => ({
    files: [`src/${domain}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: domains
            .filter((other) => other !== domain)
            .map((other) => ({
              regex: `^(\\.\\./)+${escape(other)}/(?!(${publicSurface[other].map(escape).join('|')})\\.js$)`,
              message:
                `${domain} may use the ${other} module only through its public surface ` +
                `(${publicSurface[other].map((file) => `src/${other}/${file}.ts`).join(', ')}); ` +
                'see docs/extending.md#module-boundaries.',
            })),
        },
      ],
    },
  }));
}
