package store

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// The least-privilege IAM policy of the shop: the DynamoDB actions its code
// calls, on its table and each index by name. iam_test.go reads the
// store's source and fails when a call is added that the policy lacks, or
// the policy grants one the code no longer makes.

// itemActions are what reads and writes items, on the table itself. A
// transaction is authorised item by item (PutItem, UpdateItem, DeleteItem,
// ConditionCheckItem), so TransactWriteItems is not an action of its own.
var itemActions = []string{
	"dynamodb:BatchGetItem",
	"dynamodb:BatchWriteItem",
	"dynamodb:ConditionCheckItem",
	"dynamodb:DeleteItem",
	"dynamodb:GetItem",
	"dynamodb:PutItem",
	"dynamodb:Query",
	// Only Migrate's one-time steps scan, to move items of an older shape.
	"dynamodb:Scan",
	"dynamodb:UpdateItem",
}

// indexActions are what the shop does on its indexes: it only queries them.
var indexActions = []string{"dynamodb:Query"}

// tableActions are Migrate's: it runs at every replica's start, so the
// serving role needs them too (each is a no-op on a table that is ready).
var tableActions = []string{
	"dynamodb:CreateTable",
	"dynamodb:DescribeContinuousBackups",
	"dynamodb:DescribeTable",
	"dynamodb:DescribeTimeToLive",
	"dynamodb:UpdateContinuousBackups",
	"dynamodb:UpdateTable",
	"dynamodb:UpdateTimeToLive",
}

type policyStatement struct {
	Sid      string   `json:"Sid"`
	Effect   string   `json:"Effect"`
	Action   []string `json:"Action"`
	Resource []string `json:"Resource"`
}

type policyDocument struct {
	Version   string            `json:"Version"`
	Statement []policyStatement `json:"Statement"`
}

var (
	tableNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	regionPattern    = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d$`)
	accountPattern   = regexp.MustCompile(`^\d{12}$`)
)

// IAMPolicy is the policy document, indented JSON. An empty region or
// account becomes the policy variable of the caller's (the region asked
// for, the principal's account), so the document is usable as it is.
func IAMPolicy(table, region, account string) ([]byte, error) {
	if !tableNamePattern.MatchString(table) {
		return nil, fmt.Errorf("table %q: 3 to 255 letters, digits, '_', '-' or '.'", table)
	}
	if region == "" {
		region = "${aws:RequestedRegion}"
	} else if !regionPattern.MatchString(region) {
		return nil, fmt.Errorf("region %q: not an AWS region such as eu-north-1", region)
	}
	if account == "" {
		account = "${aws:PrincipalAccount}"
	} else if !accountPattern.MatchString(account) {
		return nil, fmt.Errorf("account %q: 12 digits", account)
	}
	tableARN := fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, account, table)
	var indexARNs []string
	for _, g := range tableIndexes() {
		indexARNs = append(indexARNs, tableARN+"/index/"+aws.ToString(g.IndexName))
	}
	doc := policyDocument{Version: "2012-10-17", Statement: []policyStatement{
		{Sid: "ShopItems", Effect: "Allow", Action: itemActions, Resource: []string{tableARN}},
		{Sid: "ShopIndexes", Effect: "Allow", Action: indexActions, Resource: indexARNs},
		{Sid: "ShopTableSetup", Effect: "Allow", Action: tableActions, Resource: []string{tableARN}},
	}}
	return json.MarshalIndent(doc, "", "  ")
}
