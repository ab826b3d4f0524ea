/**
 * Replies recorded from a real model: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, llama.cpp through
 * node-llama-cpp, temperature 0, 512 tokens at most), asked the task of each case with no system
 * prompt ("-nosys") or with the graph's own system prompt ("-sys"). Kept verbatim.
 */

/** Recorded replies, by name. */
export const RECORDED: Record<string, string> = {
  "js-fizzbuzz-nosys": `Here is a simple FizzBuzz program in JavaScript:

\`\`\`javascript
for (let i = 1; i <= 15; i++) {
    if (i % 3 === 0 && i % 5 === 0) {
        console.log("FizzBuzz");
    } else if (i % 3 === 0) {
        console.log("Fizz");
    } else if (i % 5 === 0) {
        console.log("Buzz");
    } else {
        console.log(i);
    }
}
\`\`\`

This program will print "Fizz" for multiples of 3, "Buzz" for multiples of 5, and "FizzBuzz" for multiples of both 3 and 5. For all other numbers, it will simply print the number.`,
  "js-module-nosys": `Sure, here's a simple Node.js module that exports a function \`sum(a, b)\` and prints the result of \`sum(2, 3)\`:

\`\`\`javascript
// sum.js
module.exports = {
  sum: function(a, b) {
    return a + b;
  }
};

// main.js
const sum = require('./sum');

console.log(sum(2, 3)); // Output: 5
\`\`\`

In this example, the \`sum.js\` file exports a function \`sum\` that takes two arguments \`a\` and \`b\`, and returns their sum. The \`main.js\` file requires the \`sum.js\` module and then calls the \`sum\` function with the arguments \`2\` and \`3\`, printing the result to the console.`,
  "js-prime-nosys": `Sure! Below is a JavaScript function \`isPrime\` that checks if a given number \`n\` is a prime number. A prime number is a natural number greater than 1 that has no positive divisors other than 1 and itself.

Here's the function:

\`\`\`javascript
function isPrime(n) {
    // Check if n is less than 2
    if (n <= 1) {
        return false;
    }
    
    // Check for factors from 2 to the square root of n
    for (let i = 2; i <= Math.sqrt(n); i++) {
        if (n % i === 0) {
            return false;
        }
    }
    
    // If no factors were found, n is prime
    return true;
}

// Example usage:
console.log(isPrime(2));  // true
console.log(isPrime(3));  // true
console.log(isPrime(4));  // false
console.log(isPrime(5));  // true
console.log(isPrime(17)); // true
console.log(isPrime(18)); // false
console.log(isPrime(19)); // true
console.log(isPrime(20)); // false
\`\`\`

### Explanation:
1. **Base Case**: If \`n\` is less than or equal to 1, it is not a prime number.
2. **Loop through possible factors**: We only need to check factors up to the square root of \`n\` because a larger factor of \`n\` would be a multiple of a smaller factor that has already been checked.
3. **Check for divisibility**: If \`n\` is divisible by any number \`i\` in the loop, it is not a prime number.
4. **Return result**: If no factors were found, \`n\` is a prime number.

You can test the function with different numbers to see if it works correctly.`,
  "js-stack-nosys": `\`\`\`javascript
class Stack {
    constructor() {
        this.items = [];
    }

    // Push an item onto the stack
    push(item) {
        this.items.push(item);
    }

    // Pop an item from the stack
    pop() {
        if (this.isEmpty()) {
            throw new Error("Stack is empty");
        }
        return this.items.pop();
    }

    // Check if the stack is empty
    isEmpty() {
        return this.items.length === 0;
    }

    // Peek at the top item of the stack without removing it
    peek() {
        if (this.isEmpty()) {
            throw new Error("Stack is empty");
        }
        return this.items[this.items.length - 1];
    }

    // Get the size of the stack
    size() {
        return this.items.length;
    }

    // Clear the stack
    clear() {
        this.items = [];
    }
}

// Demonstration of the Stack class
const stack = new Stack();
stack.push(10);
stack.push(20);
stack.push(30);
console.log("Stack size:", stack.size()); // Output: Stack size: 3
console.log("Top item:", stack.peek()); // Output: Top item: 30
console.log("Popped item:", stack.pop()); // Output: Popped item: 30
console.log("Stack size after pop:", stack.size()); // Output: Stack size after pop: 2
console.log("Is stack empty?", stack.isEmpty()); // Output: Is stack empty? false
stack.clear();
console.log("Is stack empty after clear?", stack.isEmpty()); // Output: Is stack empty? true
\`\`\`

In this solution, we define a \`Stack\` class with methods to push, pop, peek, check if the stack is empty, get the size of the stack, and clear the stack. The \`push\` method adds an item to the top of the stack, the \`pop\` method removes the top item from the stack, the \`peek\` method returns the top item without removing it, the \`isEmpty\` method checks if the stack is empty, the \`size\` method returns the number of items in the stack, and the \`clear\` method removes all items from the stack. The demonstration shows how to use the \`Stack\` class to perform basic stack operations.`,
  "py-class-usage-nosys": `Sure! Below is a simple Python class \`BankAccount\` with methods to deposit and withdraw money. We will also show how to use this class.

\`\`\`python
class BankAccount:
    def __init__(self, initial_balance=0):
        # Initialize the account with an initial balance
        self.balance = initial_balance

    def deposit(self, amount):
        # Add money to the account balance
        if amount > 0:
            self.balance += amount
            print(f"Deposited \${amount}. New balance: \${self.balance}")
        else:
            print("Deposit amount must be positive.")

    def withdraw(self, amount):
        # Subtract money from the account balance
        if amount > 0 and amount <= self.balance:
            self.balance -= amount
            print(f"Withdrew \${amount}. New balance: \${self.balance}")
        else:
            print("Withdrawal amount must be positive and not exceed the current balance.")

# Example usage
if __name__ == "__main__":
    # Create a new bank account with an initial balance of $100
    my_account = BankAccount(100)

    # Deposit $50
    my_account.deposit(50)

    # Withdraw $20
    my_account.withdraw(20)

    # Attempt to withdraw $150 (should fail)
    my_account.withdraw(150)
\`\`\`

### Explanation:
1. **Initialization**: The \`__init__\` method initializes the account with an optional initial balance. If no initial balance is provided, it defaults to 0.
2. **Deposit**: The \`deposit\` method adds money to the account balance. It checks if the deposit amount is positive to avoid negative balances.
3. **Withdraw**: The \`withdraw\` method subtracts money from the account balance. It checks if the withdrawal amount is positive and does not exceed the current balance to avoid overdrawing.
4. **Example Usage**: In the \`if __name__ == "__main__":\` block, we create a new \`BankAccount\` with an initial balance of $100. We then perform a deposit of $50 and a withdrawal of $20. Finally, we attempt to withdraw $150, which should fail due to the insufficient balance.

This class provides a basic structure for managing bank accounts in Python. You can extend it with additional features such as interest calculations, account statements, etc.`,
  "py-doctest-nosys": `\`\`\`python
def factorial(n):
    """
    Calculate the factorial of a given number n.

    >>> factorial(1)
    1
    >>> factorial(5)
    120
    >>> factorial(10)
    3628800
    """
    if n == 0:
        return 1
    else:
        return n * factorial(n-1)

# Print the factorial of 10
print(factorial(10))
\`\`\`

In this solution, the \`factorial\` function is defined to calculate the factorial of a given number \`n\`. The function uses recursion to calculate the factorial, which is a common approach for such problems. The docstring includes doctest examples that demonstrate how to use the function and what the expected output should be. Finally, the function is called with the argument \`10\` and the result is printed.`,
  "py-fact-nosys": `\`\`\`python
def factorial(n):
    if n == 0:
        return 1
    else:
        return n * factorial(n-1)

# Calculate the factorial of 10
result = factorial(10)
print("The factorial of 10 is:", result)
\`\`\`

In this solution, the function \`factorial\` is defined to calculate the factorial of a given number \`n\`. The base case of the recursion is when \`n\` is 0, in which case the function returns 1. For other values of \`n\`, the function calls itself with \`n-1\` and multiplies the result by \`n\`. The factorial of 10 is then calculated and printed using the \`print\` statement.`,
  "py-fact-sys": `\`\`\`python
# Calculate the factorial of 10
factorial = 1
for i in range(1, 11):
    factorial *= i

# Print the result
print(factorial)
\`\`\``,
  "py-fib-nosys": `Sure, here is a simple Python program that prints the first 15 Fibonacci numbers iteratively:

\`\`\`python
def fibonacci(n):
    a, b = 0, 1
    for i in range(n):
        print(a)
        a, b = b, a + b

fibonacci(15)
\`\`\`

This program defines a function \`fibonacci\` that takes an integer \`n\` as input and prints the first \`n\` Fibonacci numbers. The Fibonacci sequence is a series of numbers where each number is the sum of the two preceding ones, usually starting with 0 and 1. The function initializes \`a\` and \`b\` to 0 and 1, respectively, and then iterates \`n\` times, printing the current value of \`a\` and updating \`a\` and \`b\` to the next two numbers in the sequence.`,
  "py-freq-nosys": `You can use the \`collections\` module in Python to count the frequency of each character in a string. Here's how you can do it:

\`\`\`python
from collections import Counter

# Define the string
text = 'hello world'

# Use Counter to count the frequency of each character
char_frequency = Counter(text)

# Print the frequency of each character
for char, freq in char_frequency.items():
    print(f'{char}: {freq}')
\`\`\`

This will output:

\`\`\`
h: 1
e: 1
l: 3
o: 2
: 1
w: 1
r: 1
d: 1
\`\`\`

This code snippet uses the \`Counter\` class from the \`collections\` module to count the frequency of each character in the string 'hello world'. The \`Counter\` object is then iterated over to print each character along with its frequency.`,
  "py-freq-sys": `\`\`\`python
# Count the occurrences of each character in the string 'hello world'
char_count = {}
for char in 'hello world':
    if char in char_count:
        char_count[char] += 1
    else:
        char_count[char] = 1

# Print each character with its count
for char, count in char_count.items():
    print(f"'{char}': {count}")
\`\`\``,
  "py-main-guard-nosys": `\`\`\`python
def main():
    # Loop through numbers 1 to 5
    for i in range(1, 6):
        # Calculate the square of the current number
        square = i ** 2
        # Print the square
        print(f"The square of {i} is {square}")

# Call the main function to execute the script
if __name__ == "__main__":
    main()
\`\`\`

In this Python script, the \`main()\` function is defined to encapsulate the logic for printing the squares of numbers from 1 to 5. The \`for\` loop iterates over the range of numbers from 1 to 5 (inclusive), calculates the square of each number using the exponentiation operator \`**\`, and then prints the result. The \`if __name__ == "__main__":\` block ensures that the \`main()\` function is called only when the script is executed directly, not when it is imported as a module.`,
  "py-prime-test-nosys": `Sure, here is a Python function \`is_prime(n)\` that checks if a number is prime and includes assertions to test its correctness:

\`\`\`python
def is_prime(n):
    # Check if the number is less than 2
    if n < 2:
        return False
    
    # Check if the number is 2
    if n == 2:
        return True
    
    # Check if the number is even
    if n % 2 == 0:
        return False
    
    # Check for factors from 3 to the square root of n
    for i in range(3, int(n**0.5) + 1, 2):
        if n % i == 0:
            return False
    
    return True

# Test cases
assert is_prime(2) == True
assert is_prime(3) == True
assert is_prime(4) == False
assert is_prime(5) == True
assert is_prime(6) == False
assert is_prime(7) == True
assert is_prime(8) == False
assert is_prime(9) == False
assert is_prime(10) == False
assert is_prime(11) == True
assert is_prime(12) == False
assert is_prime(13) == True
assert is_prime(14) == False
assert is_prime(15) == False
assert is_prime(16) == False
assert is_prime(17) == True
assert is_prime(18) == False
assert is_prime(19) == True
assert is_prime(20) == False
assert is_prime(21) == False
assert is_prime(22) == False
assert is_prime(23) == True
assert is_prime(24) == False
assert is_prime(25) == False
assert is_prime(26) == False
assert is_prime(27) == False
assert is_prime(28) == False
assert is_prime(29) == True
assert is_prime(30) == False
assert is_prime(31) == True
assert is_prime(32) == False
assert is_prime(33) == False
assert is_prime(34) == False
assert is_prime(35) == False
assert is_prime(36) == False
assert is_prime(37) == True
`,
  "py-sum-even-sys": `\`\`\`python
# Initialize the sum of squares
sum_of_squares = 0

# Iterate through the range of numbers from 1 to 20
for i in range(1, 21):
    # Check if the number is even
    if i % 2 == 0:
        # Add the square of the even number to the sum
        sum_of_squares += i ** 2

# Print the sum of squares
print(sum_of_squares)
\`\`\``,
  "py-two-approaches-nosys": `Sure, here are two ways to reverse a string in Python:

1. Using slicing:
\`\`\`python
# Define the string
string = 'hello'

# Reverse the string using slicing
reversed_string = string[::-1]

# Print the reversed string
print(reversed_string)
\`\`\`

2. Using the \`reversed()\` function:
\`\`\`python
# Define the string
string = 'hello'

# Reverse the string using the reversed() function
reversed_string = ''.join(reversed(string))

# Print the reversed string
print(reversed_string)
\`\`\`

Both of these methods will output:
\`\`\`
olleh
\`\`\``,
  "ts-groupby-nosys": `In TypeScript, you can use the \`reduce\` method to group a list of people by age and then print the groups. Here's an example:

\`\`\`typescript
// Define a type for the person
interface Person {
  name: string;
  age: number;
}

// Sample list of people
const people: Person[] = [
  { name: 'Alice', age: 25 },
  { name: 'Bob', age: 30 },
  { name: 'Charlie', age: 25 },
  { name: 'David', age: 30 },
  { name: 'Eve', age: 25 }
];

// Group people by age and print the groups
const groupedPeople = people.reduce((acc, person) => {
  if (!acc[person.age]) {
    acc[person.age] = [];
  }
  acc[person.age].push(person);
  return acc;
}, {});

// Print the grouped people
for (const age in groupedPeople) {
  if (groupedPeople.hasOwnProperty(age)) {
    console.log(\`Age \${age}: \${groupedPeople[age].map(person => person.name).join(', ')}\`);
  }
}
\`\`\`

In this example, we first define a type \`Person\` to represent the structure of each person. We then create a sample list of people. We use the \`reduce\` method to group the people by their age. The \`reduce\` function takes an accumulator (\`acc\`) and a person (\`person\`) as arguments. If the accumulator does not have an entry for the current person's age, we create one. We then push the person into the corresponding age group in the accumulator. Finally, we iterate over the accumulator to print the grouped people.`,
  "ts-groupby2-nosys": `In TypeScript, you can use the \`groupBy\` function from the \`lodash\` library to group an array into even and odd numbers. Here's how you can do it:

First, you need to install the \`lodash\` library if you haven't already. You can do this using npm:

\`\`\`bash
npm install lodash
\`\`\`

Then, you can use the \`groupBy\` function to group the array into even and odd numbers and print the result:

\`\`\`typescript
import _ from 'lodash';

const numbers = [1, 2, 3, 4, 5, 6];

const groupedNumbers = _.groupBy(numbers, (num) => num % 2 === 0 ? 'even' : 'odd');

console.log(groupedNumbers);
\`\`\`

This will output:

\`\`\`json
{
  "even": [2, 4, 6],
  "odd": [1, 3, 5]
}
\`\`\`

In this example, the \`groupBy\` function takes two arguments: the array to be grouped and a function that determines the key for each element in the array. In this case, the function checks if a number is even or odd and returns 'even' or 'odd' accordingly. The result is an object where the keys are the group names ('even' and 'odd') and the values are the arrays of numbers that belong to each group.`,
  "ts-interface-nosys": `Sure, here is the TypeScript code that defines an interface \`Shape\` with an \`area()\` method, and a \`Circle\` class that implements this interface. The \`Circle\` class has a constructor that takes the radius as a parameter and calculates the area using the formula \`π * radius^2\`.

\`\`\`typescript
// Define the Shape interface
interface Shape {
  area(): number;
}

// Define the Circle class implementing the Shape interface
class Circle implements Shape {
  constructor(private radius: number) {}

  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}

// Create an instance of Circle with radius 2
const circle = new Circle(2);

// Print the area of the circle
console.log(\`The area of the circle with radius 2 is: \${circle.area()}\`);
\`\`\`

When you run this code, it will output:

\`\`\`
The area of the circle with radius 2 is: 12.566370614359172
\`\`\`

This is the area of a circle with a radius of 2.`,
};
