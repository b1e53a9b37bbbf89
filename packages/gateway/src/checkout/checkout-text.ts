// What the hosted checkout says, in Bahasa Indonesia (the default) and English (docs/checkout.md).
// Plain words for a payer: no status codes, no ids of the gateway's own.

export type Lang = 'id' | 'en';
export const LANGS: readonly Lang[] = ['id', 'en'];

/** The states a payer sees (checkout-state.ts maps SNAP statuses onto them). */
export type CheckoutState = 'waiting' | 'processing' | 'paid' | 'refunded' | 'failed' | 'expired' | 'cancelled';

const ID = {
  title: 'Pembayaran',
  payTo: 'Bayar ke',
  amount: 'Jumlah',
  anyAmount: 'Nominal bebas',
  state: {
    waiting: 'Menunggu pembayaran',
    processing: 'Pembayaran sedang diproses',
    paid: 'Pembayaran berhasil',
    refunded: 'Pembayaran telah dikembalikan',
    failed: 'Pembayaran gagal',
    expired: 'Waktu pembayaran habis',
    cancelled: 'Pembayaran dibatalkan',
  } satisfies Record<CheckoutState, string>,
  stateNote: {
    waiting: '',
    processing: 'Mohon tunggu, halaman ini diperbarui sendiri.',
    paid: 'Terima kasih. Pembayaran Anda sudah kami terima.',
    refunded: 'Dana pembayaran ini sudah dikembalikan kepada Anda.',
    failed: 'Pembayaran tidak dapat diselesaikan. Silakan buat pesanan baru di toko.',
    expired: 'Batas waktu pembayaran sudah lewat. Silakan buat pesanan baru di toko.',
    cancelled: 'Pembayaran ini dibatalkan oleh penjual.',
  } satisfies Record<CheckoutState, string>,
  payBefore: 'Bayar sebelum',
  timeLeft: 'Sisa waktu',
  scan: 'Pindai kode QR ini dengan aplikasi bank atau dompet digital yang mendukung QRIS.',
  qrLabel: (merchant: string) => `Kode QRIS untuk membayar ${merchant}`,
  preparing: 'Kode QRIS sedang disiapkan…',
  preparingNote: 'Halaman ini dimuat ulang sendiri dalam beberapa detik.',
  bank: 'Bank',
  vaNumber: 'Nomor Virtual Account',
  vaName: 'Atas nama',
  copy: 'Salin',
  copied: 'Nomor disalin',
  howToPay: 'Cara membayar',
  walletPay: (wallet: string) => `Bayar dengan ${wallet}`,
  walletApp: (wallet: string) => `Buka aplikasi ${wallet}`,
  walletNote: 'Anda akan diarahkan ke dompet digital untuk menyetujui pembayaran ini.',
  walletTitle: (wallet: string) => `${wallet} · Setujui pembayaran`,
  walletAsk: (merchant: string) => `${merchant} meminta pembayaran dari dompet Anda.`,
  walletApprove: 'Setujui',
  walletDecline: 'Tolak',
  walletSandbox: 'Dompet sandbox: tidak ada uang sungguhan. Inilah pengganti aplikasi dompet digital.',
  walletDone: 'Pembayaran ini sudah dijawab.',
  bindTitle: (wallet: string) => `${wallet} · Hubungkan akun`,
  bindAsk: (merchant: string, wallet: string) =>
    `${merchant} ingin menghubungkan akun ${wallet} Anda, agar pembayaran berikutnya tidak perlu disetujui satu per satu.`,
  bindApprove: 'Hubungkan',
  bindDecline: 'Tolak',
  bindSandbox: 'Dompet sandbox: tidak ada akun sungguhan. Inilah pengganti aplikasi dompet digital.',
  bindBack: 'Kembali ke toko',
  bindDoneApproved: 'Akun Anda terhubung. Anda diarahkan kembali ke toko.',
  bindDoneDeclined: 'Anda menolak menghubungkan akun. Anda diarahkan kembali ke toko.',
  receipt: 'Bukti pembayaran',
  merchant: 'Penjual',
  paidAt: 'Dibayar pada',
  reference: 'Referensi',
  order: 'Nomor pesanan',
  backToShop: 'Kembali ke toko',
  redirecting: 'Anda akan diarahkan kembali ke toko dalam beberapa detik.',
  sandboxPay: 'Bayar (sandbox)',
  sandboxNote: 'Mode sandbox: tombol ini membayar melalui bank atau acquirer sandbox. Tidak ada uang sungguhan.',
  sandboxAmount: 'Jumlah (Rp)',
  sandboxRefused: 'Pembayaran sandbox ditolak: transaksi ini tidak dapat dibayar lagi.',
  language: 'Bahasa',
  notFoundTitle: 'Halaman pembayaran tidak ditemukan',
  notFound: 'Tautan ini tidak dikenal. Periksa kembali tautan dari toko, atau hubungi penjual.',
  tooManyTitle: 'Terlalu banyak permintaan',
  tooMany: (sec: number) => `Mohon tunggu ${sec} detik, lalu muat ulang halaman ini.`,
  errorTitle: 'Terjadi kesalahan',
  error: 'Halaman ini tidak dapat ditampilkan saat ini. Silakan coba lagi sebentar lagi.',
  refusedTitle: 'Permintaan ditolak',
  refused: 'Permintaan ini tidak berasal dari halaman pembayaran.',
  poweredBy: 'Pembayaran aman melalui snapgate',
  steps: {
    atm: 'ATM',
    mobile: 'Mobile banking',
    internet: 'Internet banking',
  },
  /** The steps per channel; `amount` null: an open-amount VA, the payer types what to pay. */
  stepsOf: (bank: string, va: string, amount: string | null) => {
    const check =
      amount === null
        ? 'Masukkan jumlah yang ingin dibayar dan periksa nama penerima'
        : `Periksa nama penerima dan jumlah ${amount}`;
    return {
      atm: [
        `Masukkan kartu ATM ${bank} dan PIN Anda.`,
        'Pilih Transaksi Lainnya, lalu Transfer, lalu Virtual Account.',
        `Masukkan nomor Virtual Account ${va}.`,
        `${check}, lalu konfirmasi.`,
        'Simpan struk sebagai bukti pembayaran.',
      ],
      mobile: [
        `Buka aplikasi mobile banking ${bank} dan masuk.`,
        'Pilih menu Transfer atau Bayar, lalu Virtual Account.',
        `Masukkan nomor Virtual Account ${va}.`,
        `${check}, lalu masukkan PIN.`,
        'Halaman ini berubah sendiri setelah pembayaran diterima.',
      ],
      internet: [
        `Masuk ke internet banking ${bank}.`,
        'Pilih menu Transfer, lalu Virtual Account.',
        `Masukkan nomor Virtual Account ${va}.`,
        `${check}, lalu konfirmasi dengan token atau OTP.`,
        'Halaman ini berubah sendiri setelah pembayaran diterima.',
      ],
    };
  },
  months: ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'],
};

export type CheckoutText = typeof ID;

const EN: CheckoutText = {
  title: 'Payment',
  payTo: 'Pay to',
  amount: 'Amount',
  anyAmount: 'Any amount',
  state: {
    waiting: 'Waiting for payment',
    processing: 'Payment in progress',
    paid: 'Payment successful',
    refunded: 'Payment refunded',
    failed: 'Payment failed',
    expired: 'Payment time is over',
    cancelled: 'Payment cancelled',
  },
  stateNote: {
    waiting: '',
    processing: 'Please wait: this page updates by itself.',
    paid: 'Thank you. We have received your payment.',
    refunded: 'This payment has been refunded to you.',
    failed: 'The payment could not be completed. Please place a new order at the shop.',
    expired: 'The time to pay is over. Please place a new order at the shop.',
    cancelled: 'The seller cancelled this payment.',
  },
  payBefore: 'Pay before',
  timeLeft: 'Time left',
  scan: 'Scan this QR code with any banking or e-wallet app that supports QRIS.',
  qrLabel: (merchant: string) => `QRIS code to pay ${merchant}`,
  preparing: 'Preparing the QRIS code…',
  preparingNote: 'This page reloads by itself in a few seconds.',
  bank: 'Bank',
  vaNumber: 'Virtual Account number',
  vaName: 'Name',
  copy: 'Copy',
  copied: 'Number copied',
  howToPay: 'How to pay',
  walletPay: (wallet: string) => `Pay with ${wallet}`,
  walletApp: (wallet: string) => `Open the ${wallet} app`,
  walletNote: 'You will be taken to the e-wallet to approve this payment.',
  walletTitle: (wallet: string) => `${wallet} · Approve the payment`,
  walletAsk: (merchant: string) => `${merchant} asks for a payment from your wallet.`,
  walletApprove: 'Approve',
  walletDecline: 'Decline',
  walletSandbox: 'Sandbox wallet: no real money moves. It stands in for the e-wallet app.',
  walletDone: 'This payment has been answered already.',
  bindTitle: (wallet: string) => `${wallet} · Link your account`,
  bindAsk: (merchant: string, wallet: string) =>
    `${merchant} asks to link your ${wallet} account, so that your next payments need no approval one by one.`,
  bindApprove: 'Link',
  bindDecline: 'Decline',
  bindSandbox: 'Sandbox wallet: no real account. It stands in for the e-wallet app.',
  bindBack: 'Back to the shop',
  bindDoneApproved: 'Your account is linked. Taking you back to the shop.',
  bindDoneDeclined: 'You declined to link your account. Taking you back to the shop.',
  receipt: 'Receipt',
  merchant: 'Seller',
  paidAt: 'Paid at',
  reference: 'Reference',
  order: 'Order number',
  backToShop: 'Back to the shop',
  redirecting: 'You will be taken back to the shop in a few seconds.',
  sandboxPay: 'Pay (sandbox)',
  sandboxNote: 'Sandbox mode: this button pays through the sandbox bank or acquirer. No real money moves.',
  sandboxAmount: 'Amount (Rp)',
  sandboxRefused: 'The sandbox payment was refused: this transaction can no longer be paid.',
  language: 'Language',
  notFoundTitle: 'Payment page not found',
  notFound: 'This link is not known. Check the link the shop gave you, or contact the seller.',
  tooManyTitle: 'Too many requests',
  tooMany: (sec: number) => `Please wait ${sec} seconds, then reload this page.`,
  errorTitle: 'Something went wrong',
  error: 'This page cannot be shown right now. Please try again in a moment.',
  refusedTitle: 'Request refused',
  refused: 'This request did not come from the payment page.',
  poweredBy: 'Secure payment by snapgate',
  steps: {
    atm: 'ATM',
    mobile: 'Mobile banking',
    internet: 'Internet banking',
  },
  stepsOf: (bank: string, va: string, amount: string | null) => {
    const check =
      amount === null
        ? 'Enter the amount you want to pay and check the payee’s name'
        : `Check the payee’s name and the amount ${amount}`;
    return {
      atm: [
        `Insert your ${bank} ATM card and enter your PIN.`,
        'Choose Other Transactions, then Transfer, then Virtual Account.',
        `Enter the Virtual Account number ${va}.`,
        `${check}, then confirm.`,
        'Keep the slip as proof of payment.',
      ],
      mobile: [
        `Open the ${bank} mobile banking app and sign in.`,
        'Choose Transfer or Pay, then Virtual Account.',
        `Enter the Virtual Account number ${va}.`,
        `${check}, then enter your PIN.`,
        'This page changes by itself once the payment is received.',
      ],
      internet: [
        `Sign in to ${bank} internet banking.`,
        'Choose Transfer, then Virtual Account.',
        `Enter the Virtual Account number ${va}.`,
        `${check}, then confirm with your token or OTP.`,
        'This page changes by itself once the payment is received.',
      ],
    };
  },
  months: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
};

export const TEXT: Record<Lang, CheckoutText> = { id: ID, en: EN };

/**
 * The language of a page: `?lang=` (a toggle, then remembered in a cookie), else the cookie, else
 * the first of Indonesian or English the browser prefers (Accept-Language, by its q-values);
 * Indonesian when it names neither.
 */
export function langOf(
  query: string | undefined,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): Lang {
  if (query === 'id' || query === 'en') return query;
  if (cookie === 'id' || cookie === 'en') return cookie;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
    if (tag === 'id' || tag.startsWith('id-') || tag === 'in' || tag.startsWith('in-')) return 'id';
  }
  return 'id';
}

/** Names of the common Indonesian banks by their bank code (the code a VA range belongs to). */
const BANKS: Record<string, string> = {
  '002': 'BRI',
  '008': 'Bank Mandiri',
  '009': 'BNI',
  '011': 'Bank Danamon',
  '013': 'Bank Permata',
  '014': 'BCA',
  '016': 'Maybank Indonesia',
  '019': 'Panin Bank',
  '022': 'CIMB Niaga',
  '028': 'OCBC NISP',
  '147': 'Bank Muamalat',
  '153': 'Bank Sinarmas',
  '200': 'BTN',
  '213': 'SMBC Indonesia',
  '426': 'Bank Mega',
  '441': 'KB Bank',
  '451': 'Bank Syariah Indonesia',
  '490': 'Bank Neo Commerce',
  '501': 'Blu by BCA Digital',
  '535': 'SeaBank',
  '542': 'Bank Jago',
  '999': 'Sandbox Bank',
};

/** A bank's name by its code; the name of the bank registered with it; else `Bank <code>`. */
export function bankName(bankCode: string, registered: string | undefined): string {
  return BANKS[bankCode] ?? registered ?? `Bank ${bankCode}`;
}
