import type { LinkMethod, PaymentLink } from '../records/link-records.ts';
import { html } from '../web/html.ts';
import { layout, rupiahShort } from './checkout-page.ts';
import { bankName, type Lang } from './checkout-text.ts';

// A payment link's page, `/l/<id>` (docs/payment-links.md#the-page): the merchant's name, what is
// paid for and the amount (or a field for it), and the methods to pick from; in Bahasa Indonesia
// (the default) and English. Picking one makes an ordinary payment and opens its checkout page.

const TEXT = {
  id: {
    payTo: 'Bayar ke',
    amount: 'Jumlah',
    typeAmount: 'Jumlah yang dibayar (Rp)',
    between: (min: string, max: string) => `Antara ${min} dan ${max}.`,
    atLeast: (min: string) => `Paling sedikit ${min}.`,
    atMost: (max: string) => `Paling banyak ${max}.`,
    pick: 'Pilih cara bayar',
    go: 'Lanjut ke pembayaran',
    expires: 'Berlaku sampai',
    closedTitle: 'Tautan tidak dapat dipakai',
    paid: 'Tautan pembayaran ini sudah dibayar.',
    expired: 'Tautan pembayaran ini sudah kedaluwarsa.',
    inactive: 'Tautan pembayaran ini sudah tidak aktif.',
    askSeller: 'Hubungi penjual untuk tautan baru.',
    problemAmount: 'Jumlahnya tidak sesuai: tulis angka rupiah, misalnya 50000, dalam batas di atas.',
    problemMethod: 'Pilih salah satu cara bayar di bawah.',
    problemRefused: 'Pembayaran belum dapat dibuat sekarang. Coba lagi, atau pilih cara bayar lain.',
    va: 'Virtual Account',
  },
  en: {
    payTo: 'Pay to',
    amount: 'Amount',
    typeAmount: 'Amount to pay (Rp)',
    between: (min: string, max: string) => `Between ${min} and ${max}.`,
    atLeast: (min: string) => `At least ${min}.`,
    atMost: (max: string) => `At most ${max}.`,
    pick: 'Choose how to pay',
    go: 'Continue to payment',
    expires: 'Valid until',
    closedTitle: 'This link cannot be used',
    paid: 'This payment link has been paid already.',
    expired: 'This payment link has expired.',
    inactive: 'This payment link is no longer active.',
    askSeller: 'Ask the seller for a new link.',
    problemAmount: 'That amount does not fit: write rupiah, such as 50000, within the limits above.',
    problemMethod: 'Choose one of the ways to pay below.',
    problemRefused: 'The payment could not be made just now. Try again, or choose another way to pay.',
    va: 'Virtual Account',
  },
};

export type LinkProblem = 'amount' | 'method' | 'refused';

/** A method as the payer reads it: QRIS, `Virtual Account BCA`, the wallet's name. */
export function methodLabel(method: LinkMethod, lang: Lang): string {
  if (method === 'qris') return 'QRIS';
  if (method.startsWith('va:')) return `${TEXT[lang].va} ${bankName(method.slice(3), undefined)}`;
  return method.slice('ewallet:'.length);
}

const when = (ms: number, lang: Lang) =>
  new Intl.DateTimeFormat(lang === 'id' ? 'id-ID' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Asia/Jakarta',
  }).format(ms);

/** The page of an open link: what is paid for, the amount or its field, the methods. */
export function linkPage(input: {
  link: PaymentLink;
  merchantName: string;
  lang: Lang;
  problem?: LinkProblem | undefined;
  typed?: { method?: string | undefined; amount?: string | undefined };
}): string {
  const { link, lang } = input;
  const t = TEXT[lang];
  const path = `/l/${link.id}`;
  const limits =
    link.minAmount !== null && link.maxAmount !== null
      ? t.between(rupiahShort(link.minAmount), rupiahShort(link.maxAmount))
      : link.minAmount !== null
        ? t.atLeast(rupiahShort(link.minAmount))
        : link.maxAmount !== null
          ? t.atMost(rupiahShort(link.maxAmount))
          : '';
  const problem = input.problem
    ? { amount: t.problemAmount, method: t.problemMethod, refused: t.problemRefused }[input.problem]
    : undefined;
  const chosen = input.typed?.method ?? (link.methods.length === 1 ? link.methods[0] : undefined);
  return layout(
    { lang, title: `${input.merchantName} · ${link.description}`, path },
    html`<main><section class="card" aria-labelledby="merchant"><p class="muted">${t.payTo}</p>
<h1 id="merchant">${input.merchantName}</h1>
<p id="link-description">${link.description}</p>
${link.amount !== null ? html`<p class="amount"><span class="muted">${t.amount}</span><br><span id="link-amount">${rupiahShort(link.amount)}</span></p>` : ''}
${link.expiresAt !== null ? html`<p class="muted">${t.expires} ${when(link.expiresAt, lang)} WIB</p>` : ''}</section>
<section class="card"><form method="post" action="${path}?lang=${lang}" id="link-form">
${problem ? html`<p class="note problem" role="alert" id="link-problem">${problem}</p>` : ''}
${
  link.amount === null
    ? html`<label for="amount">${t.typeAmount}</label><input id="amount" name="amount" inputmode="numeric" autocomplete="off" required value="${input.typed?.amount ?? ''}">${limits ? html`<p class="muted" id="link-limits">${limits}</p>` : ''}`
    : ''
}
<fieldset><legend>${t.pick}</legend>${link.methods.map(
      (m) =>
        html`<label class="method"><input type="radio" name="method" value="${m}" required${m === chosen ? html` checked` : ''}> ${methodLabel(m, lang)}</label>`,
    )}</fieldset>
<button type="submit" id="link-pay">${t.go}</button></form></section></main>`,
  );
}

/** What a link that takes no payment says: paid, expired, or no longer active. */
export function closedLinkText(state: 'paid' | 'expired' | 'inactive', lang: Lang): { title: string; text: string } {
  const t = TEXT[lang];
  return { title: t.closedTitle, text: `${t[state]} ${t.askSeller}` };
}
