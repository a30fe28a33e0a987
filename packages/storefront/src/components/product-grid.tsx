import type { Schemas } from '@commerce/sdk';
import Link from 'next/link';
import { money, uploadUrl } from '@/lib/format';

type Product = Schemas['ProductResponseDto'];

/** The price a shopper of the region pays, as the API calculated it (null: not sold in that currency). */
export function Price({ product }: { product: Pick<Product, 'calculated_price'> }) {
  const price = product.calculated_price;
  if (price === null || price === undefined) return <span className="price">Not sold in this region</span>;
  return (
    <span className="price">
      {price.amount < price.original_amount && (
        <del aria-label={`was ${money(price.original_amount, price.currency_code)}`}>
          {money(price.original_amount, price.currency_code)}
        </del>
      )}{' '}
      {money(price.amount, price.currency_code)}
    </span>
  );
}

export function ProductGrid({ products }: { products: Product[] }) {
  if (products.length === 0) return <p>No products found.</p>;
  return (
    <ul className="product-grid">
      {products.map((product) => (
        <li key={product.id} className="product-card">
          <Link href={`/products/${product.slug}`}>
            {product.image === '' ? (
              <span className="placeholder" aria-hidden="true" />
            ) : (
              <img
                src={uploadUrl(product.image)}
                alt={product.images[0]?.alt ?? ''}
                width={320}
                height={320}
                loading="lazy"
              />
            )}
            <span className="name">{product.name}</span>
          </Link>
          <Price product={product} />
          {product.stock === 0 && <span className="stock">Out of stock</span>}
        </li>
      ))}
    </ul>
  );
}
