import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { AddToCart } from '@/components/add-to-cart';
import { Price } from '@/components/product-grid';
import { serverClient, unless } from '@/lib/api-server';
import { uploadUrl } from '@/lib/format';
import { currentRegion } from '@/lib/region';

interface Props {
  params: Promise<{ slug: string }>;
}

async function findProduct(slug: string, regionId?: number) {
  const client = await serverClient();
  // A path that is neither an id nor a slug is a 400: not found too.
  return unless(
    [400, 404],
    client.data(
      client.api.GET('/products/{id}', { params: { path: { id: slug }, query: { region_id: regionId } } }),
    ),
  );
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const product = await findProduct((await params).slug);
  return { title: product?.name ?? 'Product not found', description: product?.description.slice(0, 160) };
}

export default async function ProductPage({ params }: Props) {
  const { region } = await currentRegion();
  const product = await findProduct((await params).slug, region?.id);
  if (product === null) notFound();
  return (
    <article className="product">
      <div className="gallery">
        {product.images.length === 0 ? (
          <span className="placeholder" aria-hidden="true" />
        ) : (
          product.images.map((image, index) => (
            <img
              key={image.url}
              src={uploadUrl(image.url)}
              alt={image.alt === '' ? `${product.name}, picture ${index + 1}` : image.alt}
              width={640}
              height={640}
              fetchPriority={index === 0 ? 'high' : undefined}
              loading={index === 0 ? 'eager' : 'lazy'}
            />
          ))
        )}
      </div>
      <div className="details">
        <h1>{product.name}</h1>
        <p>
          <Price product={product} />
        </p>
        <AddToCart
          productId={product.id}
          options={product.options}
          variants={product.variants.map(({ id, title, options, stock, calculated_price }) => ({
            id,
            title,
            options,
            stock,
            price: calculated_price ?? null,
          }))}
          stock={product.stock}
          priced={product.calculated_price !== null}
          regionId={region?.id}
        />
        <div className="description">
          {product.description.split(/\n{2,}/).map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
        </div>
      </div>
    </article>
  );
}
