"""The redirect's click budget for links with max_clicks: the one conditional update that counts a
follow, through a plain botocore client (in the home region's table, where a deployment has
several: the budget is then exact whichever region answers)."""

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.link_reader import RedirectTable
from shortlink.errors import StorageUnavailable


class DynamoClickBudget(RedirectTable):
    """ClickBudget: `clicks_used` goes up by one only while it is below `max_clicks`, in one
    conditional UpdateItem, so concurrent follows can never exceed the budget."""

    def take(self, code: str) -> bool:
        try:
            self._dynamodb().update_item(
                TableName=self._table_name,
                Key={"code": {"S": code}},
                UpdateExpression="SET #used = if_not_exists(#used, :zero) + :one",
                ConditionExpression="attribute_exists(#max) AND (attribute_not_exists(#used) OR #used < #max)",
                ExpressionAttributeNames={"#used": "clicks_used", "#max": "max_clicks"},
                ExpressionAttributeValues={":zero": {"N": "0"}, ":one": {"N": "1"}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        return True
