"""A Docker-free local stack: moto for DynamoDB and SQS, the template's HttpApi routes served
by SAM CLI's own API Gateway emulator, and the template's SQS trigger, all in one process."""
