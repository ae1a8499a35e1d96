/** Not API: the SQS transport's parts. May change in any release. */
package dev.once.sqs.internal;
