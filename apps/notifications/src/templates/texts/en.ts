import type { EmailTexts } from './email-texts';

export const en: EmailTexts = {
  layout: {
    greeting: 'Hello,',
    linkHint: 'If the button does not work, copy this address into your browser:',
    signature: 'The Homing team',
    footer: 'You receive this e-mail because this address has a Homing account. Homing brings lost things home.',
  },
  mails: {
    'login-code': {
      subject: 'Your Homing login code',
      intro: ['Here is the code to log in to Homing. It works once, for 10 minutes.'],
      action: 'Log in',
      outro: ['Did you not ask for a code? Then you can ignore this e-mail; nobody can log in without it.'],
    },
    'password-reset': {
      subject: 'Reset your Homing password',
      intro: ['Someone asked to reset the password of your Homing account. Choose a new password with the button below. The link works once, for 60 minutes.'],
      action: 'Choose a new password',
      outro: ['Did you not ask for this? Then you can ignore this e-mail; your password stays as it is.'],
    },
    welcome: {
      subject: 'Welcome to Homing',
      intro: ['Your Homing account is ready. Choose a password so you can log in any time and see who found your things.'],
      action: 'Set your password',
      outro: ['The link works for 7 days. After that you can always log in with a code sent to this address.'],
    },
    'tag-activated': {
      subject: 'Your Homing tag is active',
      intro: ['Your tag {{tagCode}} is active. Whoever finds it can now reach you without seeing your e-mail address.', 'Give it a name, so you know which of your things it is on.'],
      action: 'Name your item',
      outro: [],
    },
    'new-message': {
      subject: 'Someone wrote about your lost item',
      intro: ['A finder wrote to you about your item with tag {{tagCode}}. Read the message and answer them on Homing.', 'More messages in the next 15 minutes arrive without another e-mail.'],
      action: 'Read the message',
      outro: ['You can also answer by replying to this e-mail. Your e-mail address is never shown to the finder.'],
    },
    'owner-reply': {
      subject: 'The owner answered your message',
      intro: ['The owner of the item with tag {{tagCode}} that you found answered your message.'],
      action: 'Read the answer',
      outro: ['You can also answer by replying to this e-mail. Your e-mail address is never shown to the owner.', 'The button opens your conversation in any browser, until it has had no message for 30 days.'],
      footer: 'You receive this e-mail because you left this address when you wrote about a found item on Homing.',
    },
    'resume-link': {
      subject: 'The link to your conversation on Homing',
      intro: ['You asked for a link to your conversation about the found item with tag {{tagCode}}. The button opens it in this browser or any other.'],
      action: 'Open my conversation',
      outro: ['The link works until the conversation has had no message for 30 days. Did you not ask for it? You can ignore this e-mail.'],
      footer: 'You receive this e-mail because someone asked for a link to a conversation on Homing that this address wrote.',
    },
    'relay-acknowledgement': {
      subject: 'Your message reached the owner',
      intro: ['Thank you for writing about the item with tag {{tagCode}}. Your message reached its owner; their answer will come to this address.'],
      action: 'Open the conversation',
      outro: [
        'Reply to this e-mail to write to the owner again. Your e-mail address is never shown to the owner. Attachments are not passed on: describe where and when you can hand the item over instead.',
        'The button opens the conversation in any browser, until it has had no message for 30 days.',
      ],
      footer: 'You receive this e-mail because this address wrote to a Homing tag’s address about a found item.',
    },
    'scan-alert': {
      subject: 'Your lost item’s tag was scanned',
      intro: [
        'Someone just scanned the tag {{tagCode}} of your item marked as lost: on {{scannedAt}}, {{place}}. The place is a rough guess from the internet address of the device that scanned it.',
        'They see that you are looking for it, and can write to you through Homing. More scans in the next 15 minutes send no other e-mail.',
      ],
      action: 'Open your item',
      outro: ['You get these e-mails only while the item is marked as lost. Have it back? Turn lost mode off on the item page.'],
    },
    'account-deleted': {
      subject: 'Your Homing account is deleted',
      intro: [
        'As you asked, your Homing account is deleted. Your account, your items (their tags are retired for good and will not work again), your conversations and your push subscriptions are erased.',
        'This is the last e-mail Homing sends you: nothing else will follow.',
      ],
      action: 'Start over on Homing',
      outro: ['Thank you for using Homing. You are welcome to start again with a new tag any time.'],
      footer: 'You receive this e-mail because the Homing account of this address was deleted.',
    },
    invitation: {
      subject: 'You are invited to share an item on Homing',
      intro: [
        'Someone who uses Homing invited you to share an item with them. As a co-owner you are told when a finder writes about it or its tag is scanned, and you can answer the finder.',
        'The invitation holds for {{validDays}} days and can be used once.',
      ],
      action: 'See the invitation',
      outro: ['If you did not expect this, ignore this e-mail: nothing happens unless you accept.'],
      footer: 'You receive this e-mail because someone invited this address on Homing. Homing brings lost things home.',
    },
    'passkey-added': {
      subject: 'A passkey was added to your Homing account',
      intro: ['On {{occurredAt}}, {{passkey}} was added to your Homing account. It can now be used to log in to your account without a password or code.', 'If that was you, there is nothing else to do.'],
      action: 'Open your account',
      outro: ['Was this not you? Then someone else may have got into your account. Log in, delete the passkey under Account, and change your password.'],
    },
    'passkey-deleted': {
      subject: 'A passkey was deleted from your Homing account',
      intro: ['On {{occurredAt}}, {{passkey}} was deleted from your Homing account. It can no longer be used to log in.', 'If that was you, there is nothing else to do.'],
      action: 'Open your account',
      outro: ['Was this not you? Then someone else may have got into your account. Log in, delete any passkey you do not recognise under Account, and change your password.'],
    },
  },
  scanPlace: {
    cityAndCountry: 'near {{city}}, {{country}}',
    city: 'near {{city}}',
    country: 'somewhere in {{country}}',
    unknown: 'at a place we could not tell',
  },
  passkey: {
    withProvider: 'a passkey from {{provider}}',
    unknown: 'a passkey',
  },
  welcomeWithPassword: {
    subject: 'Welcome to Homing',
    intro: ['Your Homing account is ready. Log in with your e-mail address and the password you chose to see who found your things.'],
    action: 'Log in',
    outro: ['Forgot your password? You can always log in with a code sent to this address.'],
  },
  transferInvitation: {
    subject: 'You are invited to take over an item on Homing',
    intro: [
      'You are invited to take over an item on Homing: once you accept, it is yours, and finders of it reach you.',
      'The invitation holds for {{validDays}} days and can be used once.',
    ],
    action: 'See the invitation',
    outro: ['If you did not expect this, ignore this e-mail: nothing happens unless you accept.'],
    footer: 'You receive this e-mail because someone invited this address on Homing. Homing brings lost things home.',
  },
};
